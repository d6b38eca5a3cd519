package workload

import (
	"strconv"
	"strings"
)

// A workload's errors name its fields as its source spelled them. The
// package names a field by its TOML keys ("process[1].thread[2].cpu");
// a table may have said "processes" and "threads" instead, and the
// minimal table form has no process list at all: its one process's
// functions are the table's own "functions". A spelling, recorded while a
// table is decoded, turns the first spelling into the table's.

// spelling is how a table of a workload spelled its keys, or how the
// tables of a list did.
type spelling struct {
	// minimal marks the minimal form's top table, which is both the
	// workload and its first process ("process[1]" is the table itself).
	minimal bool
	// keys are the table's keys that are not the field's TOML key, or
	// whose tables are not spelled as TOML's.
	keys []spelled
	// elems are a list's tables (nil: spelled as TOML).
	elems []*spelling
}

// spelled is one key of a table as the table gave it.
type spelled struct {
	toml, key string    // the field's TOML key, the table's
	inner     *spelling // the table or list under it, or nil
}

// Field is the path of a field of s, given with TOML's keys as
// [FieldError] has them ("process[1].thread[2].cpu"), spelled as s's
// source spelled it: unchanged for a TOML file or a Go value, with the
// table's own keys for a workload from [DecodeTable]
// ("processes[1].threads[2].cpu"; "threads[2].cpu" in the minimal form,
// whose table is its process). Callers that check a workload further (a
// machine's processor count) name fields with it.
func (s *Spec) Field(path string) string { return s.spelling.field(path) }

// field spells path (see Spec.Field).
func (sp *spelling) field(path string) string {
	if sp == nil || path == "" {
		return path
	}
	if sp.minimal {
		switch {
		case path == "process[1]":
			return ""
		case strings.HasPrefix(path, "process[1]."):
			path = strings.TrimPrefix(path, "process[1].")
		}
	}
	var out []string
	node := sp
	for rest := path; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, ".")
		key, index := seg, ""
		if i := strings.IndexByte(seg, '['); i >= 0 {
			key, index = seg[:i], seg[i:]
		}
		var next *spelling
		if s := node.find(key); s != nil {
			key, next = s.key, s.inner.elem(index)
		}
		out = append(out, key+index)
		node = next
	}
	return strings.Join(out, ".")
}

// find is how the table gave the field of TOML key toml, or nil where it
// gave it as TOML does.
func (sp *spelling) find(toml string) *spelled {
	if sp == nil {
		return nil
	}
	for i := range sp.keys {
		if sp.keys[i].toml == toml {
			return &sp.keys[i]
		}
	}
	return nil
}

// elem is the spelling of a list's element at index ("[2]"), or the
// table's own for index "" (a table that is no list, such as kernel).
func (sp *spelling) elem(index string) *spelling {
	if sp == nil || index == "" {
		return sp
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(index, "["), "]"))
	if err != nil || n < 1 || n > len(sp.elems) {
		return nil
	}
	return sp.elems[n-1]
}

// spell records that the table gave the field of TOML key toml as key,
// the tables under it spelled inner; it returns the spelling, allocated
// on the first difference from TOML's.
func (sp *spelling) spell(toml, key string, inner *spelling) *spelling {
	if key == toml && inner == nil {
		return sp
	}
	if sp == nil {
		sp = &spelling{}
	}
	sp.keys = append(sp.keys, spelled{toml: toml, key: key, inner: inner})
	return sp
}
