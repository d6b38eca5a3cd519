package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/sweep"
)

func newReportCmd() *cobra.Command {
	var sweepFile string
	var formats []string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Write a sweep's results.csv, summary.md, plots and report.html from DIR/results.jsonl",
		Long: "Write a sweep's results.csv, summary.md, plots and report.html from DIR/results.jsonl.\n" +
			"--sweep FILE takes the units and plots from FILE's [units] and [[plot]] tables instead of\n" +
			"those the sweep ran with (recorded in DIR/sweep.json): correct a plot without running again.\n" +
			"--format pdf (or svg, png; repeat it or list them: --format svg,pdf) draws the figures in those\n" +
			"formats instead of the sweep file's [report] formats (default svg), and records them for the next report.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sweep.ReportWith(args[0], sweep.ReportOptions{Sweep: sweepFile, Formats: formats, Notes: noteTo(cmd.ErrOrStderr())}); err != nil {
				return withCode(ExitUsage, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report in %s\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&sweepFile, "sweep", "", "a sweep file whose [units], [labels], [report] and [[plot]] the reports use")
	cmd.Flags().StringSliceVar(&formats, "format", nil, "the figures' formats: svg, pdf, png (default: the sweep file's [report] formats, else svg)")
	return cmd
}
