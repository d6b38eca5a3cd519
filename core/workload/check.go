package workload

import (
	"fmt"
	"math"
)

// FieldError is a workload error naming the field.
type FieldError struct {
	// Field is the path of the field, with 1-based indexes, as the
	// workload's source spells it: "process[1].thread[2].affinity" in a
	// TOML file, "processes[1].threads[2].affinity" in a table that says
	// processes and threads (see [Spec.Field]); "" for the workload as a
	// whole.
	Field string
	// Msg says what is wrong.
	Msg string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// checker collects a workload's errors, naming fields as its source
// spelled them.
type checker struct {
	errs     []error
	spelling *spelling
}

// add records an error about field, named with TOML's keys.
func (c *checker) add(field, format string, args ...any) {
	c.errs = append(c.errs, &FieldError{Field: c.spelling.field(field), Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) rate(field string, v float64) { c.rateOf(field, "", v) }

// rateOf checks prefix.name's rate; the field's name is joined only for
// an error.
func (c *checker) rateOf(prefix, name string, v float64) {
	if !validRate(v) {
		c.add(join(prefix, name), "must be between 0 and 1, got %v", v)
	}
}

func (c *checker) weight(field string, v float64) {
	if !validWeight(v) {
		c.add(field, "must be >= 0, got %v", v)
	}
}

// validRate reports whether v is a rate: between 0 and 1.
func validRate(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= 1 }

// validWeight reports whether v is a weight: finite and >= 0.
func validWeight(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}
