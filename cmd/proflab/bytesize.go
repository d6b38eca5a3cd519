package main

import "github.com/proflab/proflab/core/config"

// byteSize is a flag holding a size in bytes, written as the configuration
// writes them: 1GiB, 512MiB, 2GB, 1073741824; 0 or none for no limit.
type byteSize config.ByteSize

func (b *byteSize) Set(s string) error {
	v, err := config.ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

func (b *byteSize) String() string { return config.ByteSize(*b).String() }

func (b *byteSize) Type() string { return "size" }
