package halrpc

import (
	plugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the HAL plugin protocol version this package speaks.
const ProtocolVersion = 1

// PluginName is the name the HAL is served under in go-plugin's plugin set.
const PluginName = "hal"

// MagicCookieKey and MagicCookieValue make a plugin refuse to run unless
// started by a proflab host (go-plugin's handshake).
const (
	MagicCookieKey   = "PROFLAB_HAL_PLUGIN"
	MagicCookieValue = "9d2c6f1e-proflab-hal-5b7a"
)

// handshake is the go-plugin handshake for a protocol version.
func handshake(version uint) plugin.HandshakeConfig {
	return plugin.HandshakeConfig{ProtocolVersion: version, MagicCookieKey: MagicCookieKey, MagicCookieValue: MagicCookieValue}
}
