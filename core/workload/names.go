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
	qualified map[string]int // "image!name" → function index
	plain     map[string][]int
}

func newNames() *names {
	return &names{qualified: map[string]int{}, plain: map[string][]int{}}
}

// qualify is the reference of function name in image (or process) owner.
func qualify(owner, name string) string { return owner + "!" + name }

// define records function idx named name in owner and reports whether
// owner already defines that name.
func (n *names) define(owner, name string, idx int) (dup bool) {
	q := qualify(owner, name)
	if _, ok := n.qualified[q]; ok {
		return true
	}
	n.qualified[q] = idx
	n.plain[name] = append(n.plain[name], idx)
	return false
}

// has reports whether some image or process defines name.
func (n *names) has(name string) bool { return len(n.plain[name]) > 0 }

// find resolves a reference: the function's index, or a message saying
// why there is none.
func (n *names) find(ref string, funcs []Func) (int, string) {
	switch ids := n.plain[ref]; {
	case len(ids) == 1:
		return ids[0], ""
	case len(ids) > 1:
		var quals []string
		for _, i := range ids {
			quals = append(quals, fmt.Sprintf("%q", qualify(funcs[i].owner, ref)))
		}
		sort.Strings(quals)
		return -1, fmt.Sprintf("%q is defined in several images: name one of %s", ref, strings.Join(quals, ", "))
	}
	if i, ok := n.qualified[ref]; ok {
		return i, ""
	}
	return -1, fmt.Sprintf("no function named %q in the workload", ref)
}
