package output

import "io"

// WriteETLTo writes machine e's .etl to w (for the benchmarks, which
// compare it with the Perfetto trace written to the same kind of w).
func WriteETLTo(w io.Writer, e *Machine) error {
	_, err := writeETL(w, e, ETLFile)
	return err
}
