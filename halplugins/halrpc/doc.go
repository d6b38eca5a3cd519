// Package halrpc carries the HAL contract (package hal) across a process
// boundary with hashicorp/go-plugin over gRPC. A plugin's main calls
// [Serve] with its factory; the host starts plugins with [Start] and drives
// their instances through [Client.NewInstance], which implements
// hal.Instance. Plugin authors never see protobuf or go-plugin.
//
// The protocol is versioned with go-plugin's VersionedPlugins: this is
// protocol version [ProtocolVersion] (1). Its wire form is proto/hal.proto,
// whose generated Go code is checked in; `make proto` regenerates it.
//
// Calls travel on a Session stream per instance when the plugin serves it
// (a plugin that does not gets unary calls). An instance made with
// [Client.NewInstanceIn] belongs to a [Pipeline]: the calls whose answers
// the kernel does not need at once ([Pipelined]) are sent without
// waiting, and their answers handed over in call order when the pipeline
// settles; docs/hal-plugins.md, "The protocol", says what the host gains.
//
// A plugin logs to stderr only (stdout belongs to go-plugin's handshake);
// the host forwards those lines to its log. A plugin exits when its parent
// dies: the host sets the parent-death signal on Linux and Serve also polls
// its parent's pid.
//
// Every call and every shutdown has a deadline and a kill. A plugin runs
// in a process group of its own, so that killing the group also ends
// whatever it started (a shell script's children keep its stdout open,
// and go-plugin waits for stdout to close). Start, handshake and
// connection are bounded by Options.StartTimeout and cancelled by
// Options.Context; a call that outlives Options.Timeout kills the plugin
// at once; a call whose instance context ends (NewInstanceContext)
// returns ErrCanceled and leaves the plugin running; Kill allows
// ShutdownTimeout for go-plugin's graceful shutdown and then kills the
// group (a SIGSTOPped plugin never answers the shutdown call). Done and
// Err tell a host that the process died between calls. When the host
// itself is killed with SIGKILL, the parent-death signal ends the plugin
// but not what the plugin started.
package halrpc
