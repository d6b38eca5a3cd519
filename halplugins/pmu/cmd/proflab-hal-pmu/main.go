// Command proflab-hal-pmu is proflab's shipped pmu HAL as a plugin process
// (see package github.com/proflab/proflab/halplugins/pmu). proflab starts
// it; run by hand it says so and exits.
package main

import (
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/pmu"
)

func main() { halrpc.Serve(pmu.New) }
