package etlprof

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// notes says what the import left out or found.
func (b *builder) notes(j joined, symsFrom string, idle, idleInterrupt, filtered, noStack, events int64) {
	m, tr := b.r.Model, b.tr
	if idle > 0 {
		text := fmt.Sprintf("%d samples on the idle thread (ThreadId 0, the Idle process) are idle time: no thread of the workload runs them, the lab's idle loop does", idle)
		if idleInterrupt > 0 {
			text += fmt.Sprintf(" (%d of them in an ISR or DPC)", idleInterrupt)
		}
		m.Note("%s", text)
	}
	if filtered > 0 {
		m.Note("%d samples of other processes than --process %s were left out", filtered, b.r.Options.Process)
	}
	if noStack > 0 {
		m.Note("%d samples have no stack (no StackWalk event names them; the trace was recorded without -stackwalk Profile, or their stacks were lost): each is its IP alone", noStack)
	}
	if j.undefined > 0 {
		m.Note("%d stack key references name a key that no KeyCreate, KeyDelete or KeyRundown defines: their samples keep the other part of their stack, or their IP alone", j.undefined)
	}
	if j.orphans > 0 {
		m.Note("%d stack events belong to no sample (stacks of other events, such as context switches): left out", j.orphans)
	}
	if j.twice > 0 {
		m.Note("%d stack events were a second kernel or user part of one sample: the first was kept", j.twice)
	}
	if tr.hdr.EventsLost > 0 || tr.hdr.BuffersLost > 0 {
		m.Note("the logger lost %d events and %d buffers (the file header's EventsLost and BuffersLost): samples may be missing", tr.hdr.EventsLost, tr.hdr.BuffersLost)
	}
	if n := b.n.kinds[inMethod]; n > 0 {
		m.Note("%d addresses in no image fall in JIT-compiled .NET methods (the CLR's method events): named Namespace.MethodName in the image %s", n, JITImage)
	}
	if n := b.n.kinds[inNothing]; n > 0 {
		m.Note("%d addresses fall in no image and no .NET method: kept as functions of the image %s (%s in kernel space), named by address", n, UnknownImage, UnknownKernel)
	}
	for _, note := range b.sameNameNotes() {
		m.Note("%s", note)
	}
	if symsFrom != "" {
		used := slices.Sorted(maps.Keys(b.n.symUsed))
		if len(used) == 0 {
			m.Note("the symbol listing %s named no sampled address (its images are not the trace's, by base name?)", symsFrom)
		} else {
			m.Note("the symbol listing %s named addresses of %s; the others are IMAGE+0xRVA", symsFrom, strings.Join(used, ", "))
		}
	}
	if note := b.pdbNote(); note != "" {
		m.Note("%s", note)
	}
	if len(tr.skipped) > 0 {
		m.Note("%s", skippedNote(byName(tr.skipped)))
	}
	if len(tr.bad) > 0 {
		total, kinds := byKind(byName(tr.bad))
		m.Warn("%d events could not be read and were left out (%s); the first: %s", total, kinds, tr.firstBad)
	}
}

// shownPDBs is how many PDB identities the note names.
const shownPDBs = 5

// pdbNote names the PDBs (KernelTraceControl's DbgID_RSDS events) of the
// images whose addresses were named without a symbol listing, the images
// of the most samples' IPs first: what a symbol listing would be made
// from.
func (b *builder) pdbNote() string {
	var parts []string
	n := 0
	used := slices.Clone(b.n.used)
	slices.SortStableFunc(used, func(a, b ownedImage) int { return b.leaves - a.leaves })
	for _, u := range used {
		d, ok := b.tr.rsds[[2]uint64{uint64(u.pid), u.img.base}]
		if !ok || b.n.symUsed[u.img.name] {
			continue
		}
		n++
		if len(parts) < shownPDBs {
			parts = append(parts, fmt.Sprintf("%s: %s {%s} age %d", u.img.name, d.PdbFileName, d.Signature, d.Age))
		}
	}
	if n == 0 {
		return ""
	}
	text := strings.Join(parts, "; ")
	if n > len(parts) {
		text += fmt.Sprintf("; and %d more", n-len(parts))
	}
	return fmt.Sprintf("the sampled images' PDBs (DbgID_RSDS), from which a symbol listing (--symbols, docs/etl.md) would name their functions: %s", text)
}

// byName are counts by kind keyed by the kinds' names.
func byName(counts map[kind]int) map[string]int {
	out := make(map[string]int, len(counts))
	for k, n := range counts {
		out[k.String()] += n
	}
	return out
}

// shownKinds is how many kinds of skipped events the note names.
const shownKinds = 8

// skippedNote counts the events not used by kind.
func skippedNote(skipped map[string]int) string {
	total, kinds := byKind(skipped)
	return fmt.Sprintf("%d events the import does not use were skipped (events of other providers, and kernel events other than processes, threads, images, samples and stacks), by kind: %s", total, kinds)
}

// byKind sums counts by kind and names them, the most frequent first (by
// name on ties), the kinds past shownKinds summed.
func byKind(counts map[string]int) (total int, text string) {
	kinds := slices.Sorted(maps.Keys(counts))
	slices.SortStableFunc(kinds, func(a, b string) int { return counts[b] - counts[a] })
	for _, k := range kinds {
		total += counts[k]
	}
	parts := make([]string, 0, shownKinds+1)
	for _, k := range kinds[:min(len(kinds), shownKinds)] {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	if rest := kinds[min(len(kinds), shownKinds):]; len(rest) > 0 {
		n := 0
		for _, k := range rest {
			n += counts[k]
		}
		parts = append(parts, fmt.Sprintf("%d more kinds: %d", len(rest), n))
	}
	return total, strings.Join(parts, "; ")
}

// sameNameNotes says, per process whose sampled images include files of
// one base name at different paths (a 32-bit program under WOW64 maps
// the 64-bit and the 32-bit ntdll.dll), which file each workload image
// is: the import's "ntdll.dll#2" is then another file of the same
// process, not another process's copy.
func (b *builder) sameNameNotes() []string {
	type key struct {
		pid  uint32
		name string
	}
	byName := map[key][]image{}
	var order []key
	for _, u := range b.n.used {
		k := key{u.pid, strings.ToLower(u.img.name)}
		if len(byName[k]) == 0 {
			order = append(order, k)
		}
		byName[k] = append(byName[k], u.img)
	}
	var out []string
	for _, k := range order {
		imgs := byName[k]
		if len(imgs) < 2 || imgs[0].path == imgs[1].path {
			continue
		}
		var files []string
		for _, img := range imgs {
			files = append(files, fmt.Sprintf("%s is %s", b.r.Model.Image(img.key, img.name, false).Name(), img.path))
		}
		out = append(out, fmt.Sprintf("%s (pid %d) has %d sampled images named %s, different files (a 32-bit program under WOW64 maps a 64-bit and a 32-bit ntdll.dll, for one): %s",
			b.tr.processName(k.pid, imgs[0].t), k.pid, len(imgs), imgs[0].name, strings.Join(files, "; ")))
	}
	return out
}
