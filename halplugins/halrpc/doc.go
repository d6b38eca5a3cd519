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
// A plugin logs to stderr only (stdout belongs to go-plugin's handshake);
// the host forwards those lines to its log. A plugin exits when its parent
// dies: the host sets the parent-death signal on Linux and Serve also polls
// its parent's pid.
package halrpc
