// Command gen writes core/luart/constants_nt_gen.go from kernel/nt:
//
//	go run ./internal/constgen/gen ../../kernel/nt constants_nt_gen.go
//
// (run by `go generate ./core/luart`).
package main

import (
	"fmt"
	"os"

	"github.com/proflab/proflab/core/luart/internal/constgen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen NT_DIR OUT.go")
		os.Exit(2)
	}
	src, err := constgen.Generate(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
