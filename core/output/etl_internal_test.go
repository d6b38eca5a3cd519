package output

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/proflab/proflab/core/workload"
)

func TestTraceImageName(t *testing.T) {
	for in, want := range map[string]string{"app.exe": "app.exe", "my app.exe": "my_app.exe", "a\tb": "a_b"} {
		if got := traceImageName(in); got != want {
			t.Errorf("traceImageName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := imageFileName("my app"); got != "my app.exe" {
		t.Errorf("imageFileName(%q) = %q", "my app", got)
	}
}

// The PDB identity as docs/etl.md gives it, so that a user can compute
// it: SHA-256 of the name, a NUL, "NAME RVA SIZE\n" per function.
func TestPDBIdentity(t *testing.T) {
	im := &etlImage{name: "cc.exe", base: 0x400000, funcs: []workload.Func{
		{Function: workload.Function{Name: "main", Size: 0x400}, Addr: 0x401000},
		{Function: workload.Function{Name: "lex", Size: 0x200}, Addr: 0x401800},
	}}
	sum := sha256.Sum256([]byte("cc.exe\x00main 1000 400\nlex 1800 200\n"))
	pdb, stamp := pdbIdentity(im)
	if !bytes.Equal(pdb.Signature[:], sum[:16]) || pdb.Age != 1 || pdb.FileName != "cc.pdb" || stamp != binary.LittleEndian.Uint32(sum[16:]) {
		t.Errorf("identity %+v, stamp %#x; want GUID %x, age 1, cc.pdb, stamp %#x", pdb, stamp, sum[:16], binary.LittleEndian.Uint32(sum[16:]))
	}
}
