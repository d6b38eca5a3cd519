package workload

import (
	"fmt"
	"sort"
	"strings"
)

// A function reference names a function: its name when exactly one image
// (or process) defines it, else "image!name", the module!symbol form of
// Windows' debuggers and kernrate. A process's own functions are
// qualified by the process's name.

// ImageRefs calls fn with the reference of every function of s's images,
// in order: its name, or "image!name" where several images define the
// name (what Resolve accepts and Resolved.Ref gives).
func (s *Spec) ImageRefs(fn func(ref string, f *Function)) {
	count := map[string]int{}
	for _, img := range s.Images {
		for _, f := range img.Functions {
			count[f.Name]++
		}
	}
	for i := range s.Images {
		img := &s.Images[i]
		for j := range img.Functions {
			f := &img.Functions[j]
			ref := f.Name
			if count[f.Name] > 1 {
				ref = qualify(img.Name, f.Name)
			}
			fn(ref, f)
		}
	}
}

// names finds the workload's functions by reference.
type names struct {
	// plain is a name's function index, or -1 where several images
	// define the name (listed in several)
	plain   map[string]int
	several map[string][]int
	// qualified is "image!name" → function index, made on the first
	// reference that is not a plain name (an imported workload has
	// thousands of functions, and most references are plain)
	qualified   map[string]int
	qualifiedOf int // how many functions qualified holds
}

func newNames() *names {
	return &names{plain: map[string]int{}, several: map[string][]int{}}
}

// qualify is the reference of function name in image (or process) owner.
func qualify(owner, name string) string { return owner + "!" + name }

// define records function idx named name in owner and reports whether
// owner already defines that name; funcs are the functions defined
// before it.
func (n *names) define(funcs []Func, owner, name string, idx int) (dup bool) {
	first, ok := n.plain[name]
	if !ok {
		n.plain[name] = idx
		return false
	}
	ids := n.several[name]
	if first >= 0 {
		ids = []int{first}
	}
	for _, i := range ids {
		if funcs[i].owner == owner {
			return true
		}
	}
	n.plain[name] = -1
	n.several[name] = append(ids, idx)
	n.qualified = nil
	return false
}

// has reports whether some image or process defines name.
func (n *names) has(name string) bool {
	_, ok := n.plain[name]
	return ok
}

// shared reports whether several images or processes define name.
func (n *names) shared(name string) bool { return n.plain[name] < 0 }

// find resolves a reference: the function's index, or a message saying
// why there is none.
func (n *names) find(ref string, funcs []Func) (int, string) {
	i, ok := n.plain[ref]
	switch {
	case ok && i >= 0:
		return i, ""
	case ok:
		var quals []string
		for _, i := range n.several[ref] {
			quals = append(quals, fmt.Sprintf("%q", qualify(funcs[i].owner, ref)))
		}
		sort.Strings(quals)
		return -1, fmt.Sprintf("%q is defined in several images: name one of %s", ref, strings.Join(quals, ", "))
	}
	if n.qualified == nil || n.qualifiedOf != len(funcs) {
		n.qualified, n.qualifiedOf = make(map[string]int, len(funcs)), len(funcs)
		for i := range funcs {
			if q := qualify(funcs[i].owner, funcs[i].Name); !hasKey(n.qualified, q) {
				n.qualified[q] = i
			}
		}
	}
	if i, ok := n.qualified[ref]; ok {
		return i, ""
	}
	return -1, fmt.Sprintf("no function named %q in the workload", ref)
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}
