package profmodel

import (
	"fmt"

	"github.com/proflab/proflab/core/input"
)

// A memory budget's watchdog samples the heap every few milliseconds,
// which a format building stacks can outrun: a tree-shaped profile of a
// few megabytes made gigabytes between two samples. So the model also
// counts, as they are allocated, the bytes of what grows with the
// stacks (the formats' own copies of them, the model's, and the
// workload's that Spec will make), and stops once they pass the
// budget: whatever the watchdog sees, an import holds no more than its
// budget in stacks.

// BudgetError is the error of an import whose stacks would hold more
// than its memory budget.
type BudgetError struct {
	// Budget is the budget in bytes; Held what was counted when it
	// stopped.
	Budget, Held int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("its stacks would hold more than the import's memory budget of %s (%s counted when it stopped)", input.Size(e.Budget), input.Size(e.Held))
}

// SetBudget bounds what the model holds, in bytes (0: no bound), of
// which held are held already (the profile's content).
func (m *Model) SetBudget(budget, held int64) { m.budget, m.held = budget, held }

// Held is the bytes counted so far (SetBudget's held and every Charge).
func (m *Model) Held() int64 { return m.held }

// Charge counts n bytes more held for the stacks: past the budget, the
// model stops (Err is a *BudgetError) and Add adds nothing more. It
// says whether the import may go on.
func (m *Model) Charge(n int64) bool {
	if m.stop != nil {
		return false
	}
	m.held += n
	if m.budget > 0 && m.held > m.budget {
		m.stop = &BudgetError{Budget: m.budget, Held: m.held}
		return false
	}
	return true
}

// Bytes an Add or a format's copy of a stack holds, as Charge counts
// them: per frame, a model stack's function pointer, its key's few
// bytes and the workload's frame name (a string header); per stack a
// map entry, slice headers and the stack's own fields.
const (
	stackFrameBytes = 8 + 2 + 16
	stackBytes      = 128
)

// StackBytes is what a stack of n frames holds in the model and the
// workload, for Charge.
func StackBytes(n int) int64 { return int64(n)*stackFrameBytes + stackBytes }
