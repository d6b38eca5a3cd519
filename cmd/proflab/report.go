package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/sweep"
)

func newReportCmd() *cobra.Command {
	var sweepFile string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Write a sweep's results.csv, summary.md, plots and report.html from DIR/results.jsonl",
		Long: "Write a sweep's results.csv, summary.md, plots and report.html from DIR/results.jsonl.\n" +
			"--sweep FILE takes the units and plots from FILE's [units] and [[plot]] tables instead of\n" +
			"those the sweep ran with (recorded in DIR/sweep.json): correct a plot without running again.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sweep.ReportFigures(args[0], sweepFile, noteTo(cmd.ErrOrStderr())); err != nil {
				return withCode(ExitUsage, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report in %s\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&sweepFile, "sweep", "", "a sweep file whose [units] and [[plot]] the reports use")
	return cmd
}
