// Command proflab-hal-pebs is proflab's shipped pebs HAL as a plugin process
// (see package github.com/proflab/proflab/halplugins/pebs). proflab starts
// it; run by hand it says so and exits.
package main

import (
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/pebs"
)

func main() { halrpc.Serve(pebs.New) }
