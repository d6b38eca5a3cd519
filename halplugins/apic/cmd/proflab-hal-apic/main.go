// Command proflab-hal-apic is proflab's shipped apic HAL as a plugin process
// (see package github.com/proflab/proflab/halplugins/apic). proflab starts
// it; run by hand it says so and exits.
package main

import (
	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/halrpc"
)

func main() { halrpc.Serve(apic.New) }
