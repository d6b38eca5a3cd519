package halrpc

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// fileSHA256 returns the hex sha256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FileSHA256 returns the hex sha256 of the file at path, the form the
// configuration's sha256 takes.
func FileSHA256(path string) (string, error) { return fileSHA256(path) }
