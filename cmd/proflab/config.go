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
		Long: "check loads the configuration strictly, then starts every configured HAL and configures it\n" +
			"with its settings on the default machine, as every run does before it starts: an unknown or\n" +
			"wrong setting, or a plugin that is not there, is reported with its file, line and key (exit 2);\n" +
			"a plugin that cannot be started exits 3.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, _, closeHALs, err := cf.setup() // as every run starts
			if err != nil {
				return err
			}
			closeHALs()
			fmt.Fprintln(cmd.OutOrStdout(), "configuration OK")
			return nil
		},
	}
	cf.add(check, true)
	cmd.AddCommand(check)
	return cmd
}
