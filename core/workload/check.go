package workload

import (
	"fmt"
	"math"
)

// FieldError is a workload error naming the field.
type FieldError struct {
	// Field is the path of the field ("process[1].thread[2].affinity").
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

type checker struct{ errs []error }

func (c *checker) add(field, format string, args ...any) {
	c.errs = append(c.errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
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
