package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/config"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Print or check configurations"}
	cmd.AddCommand(&cobra.Command{
		Use:   "init",
		Short: "Print a commented sample configuration",
		Long:  "init prints a commented sample configuration with every key at its built-in\nvalue; save it (proflab config init > lab.toml) and edit what you need.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), config.Sample())
			return err
		},
	})
	var cf configFlags
	check := &cobra.Command{
		Use:   "check",
		Short: "Load a configuration (the default, --config FILE, --config-set) and report errors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := cf.load(); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "configuration OK")
			return nil
		},
	}
	cf.add(check)
	cmd.AddCommand(check)
	return cmd
}
