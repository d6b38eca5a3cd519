package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newHalCmd() *cobra.Command {
	return &cobra.Command{Use: "hal", Short: "List and check HAL plugins", RunE: func(*cobra.Command, []string) error {
		return withCode(ExitInternal, errors.New("hal: not built yet"))
	}}
}

func newConfigCmd() *cobra.Command {
	return &cobra.Command{Use: "config", Short: "Print a sample configuration", RunE: func(*cobra.Command, []string) error {
		return withCode(ExitInternal, errors.New("config: not built yet"))
	}}
}
