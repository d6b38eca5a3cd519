package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/sweep"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Write a sweep's results.csv, summary.md, plots and report.html from DIR/results.jsonl",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sweep.Report(args[0]); err != nil {
				return withCode(ExitUsage, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report in %s\n", args[0])
			return nil
		},
	}
}
