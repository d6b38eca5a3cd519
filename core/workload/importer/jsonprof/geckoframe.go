package jsonprof

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// A Firefox profile's frames, resolved to functions (and addresses) of
// the srcBuilder: from a Gecko-format frame's location string, or from a
// processed frame's function and resource.

// The Firefox Profiler's patterns for a Gecko frame's location.
var (
	geckoJS      = regexp.MustCompile(`^(.*) \((.+?):([0-9]+)(?::([0-9]+))?\)(?:\[\d+\])?$`)
	geckoJSNoFn  = regexp.MustCompile(`^()(.+?):([0-9]+)(?::([0-9]+))?(?:\[\d+\])?$`)
	geckoNative  = regexp.MustCompile(`^(.*) \(in ([^)]*)\)(?: \+ [0-9]+| \(.*:.*\))?$`)
	geckoAddress = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
)

// rawFrame resolves a frame of the Gecko format from its location string.
func (gr *geckoReader) rawFrame(p geckoPart, t *geckoThread, f int, str func(geckoCell) (string, bool), libs []geckoLib) (*geckoFrame, error) {
	b := gr.b
	loc, ok := str(t.FrameTable.column("location", 0)(f))
	if !ok {
		return nil, gr.r.Errorf("%s: frame %d has no location string", p.index, f)
	}
	gf := &geckoFrame{cat: -1, lib: -1}
	if c, ok := t.FrameTable.column("category", -1)(f).index(); ok {
		gf.cat = c
	}
	switch {
	case geckoAddress.MatchString(loc):
		addr, err := strconv.ParseUint(loc[2:], 16, 64)
		if err != nil {
			return nil, gr.r.Errorf("%s: frame %d's address %s is out of range", p.index, f, loc)
		}
		for i, l := range libs {
			if l.Start.set && l.End.set && addr >= l.Start.v && addr < l.End.v {
				key := fmt.Sprintf("lib %s %d", t.Pid, i)
				b.image(key, geckoLibName(l))
				b.mapping(key, l.Start.v, l.End.v)
				gf.fn = b.fn(srcFunc{img: key, name: profmodel.AddressName(addr)})
				gf.addr, gf.hasAddr, gf.lib = addr, true, i
				return gf, nil
			}
		}
		// JIT code, or a library the profile does not list: a function
		// of that name, without a place in any image's layout.
		b.image(GeckoUnknownImage, GeckoUnknownImage)
		gf.fn = b.fn(srcFunc{img: GeckoUnknownImage, name: loc})
		gr.st.outside++
	default:
		gf.fn = gr.locationFunc(loc)
	}
	return gf, nil
}

// locationFunc is the function of a location string that is not an
// address: a JavaScript function, a native function in a library, or a
// label.
func (gr *geckoReader) locationFunc(loc string) int {
	b := gr.b
	if m := geckoJS.FindStringSubmatch(loc); m != nil || geckoJSNoFn.MatchString(loc) {
		if m == nil {
			m = geckoJSNoFn.FindStringSubmatch(loc)
		}
		name, url := m[1], m[2]
		if name == "" {
			name = "(root scope) " + url
		}
		line, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		return b.fn(srcFunc{img: b.fileImage(url), name: name, line: line, col: col})
	}
	if m := geckoNative.FindStringSubmatch(loc); m != nil {
		key := "lib " + m[2]
		b.image(key, m[2])
		return b.fn(srcFunc{img: key, name: m[1]})
	}
	return b.fn(srcFunc{img: b.fileImage(""), name: loc})
}

// processedFrame resolves a frame of the processed format from its
// function (funcTable) and resource (resourceTable).
func (gr *geckoReader) processedFrame(p geckoPart, t *geckoThread, f int, str func(geckoCell) (string, bool), libs []geckoLib) (*geckoFrame, error) {
	b := gr.b
	gf := &geckoFrame{cat: -1, lib: -1}
	if c, ok := t.FrameTable.column("category", -1)(f).index(); ok {
		gf.cat = c
	}
	if d, ok := t.FrameTable.column("inlineDepth", -1)(f).index(); ok && d > 0 {
		gf.inlined = true
	}
	fi, ok := t.FrameTable.column("func", -1)(f).index()
	if !ok || fi >= t.FuncTable.len() {
		return nil, gr.r.Errorf("%s: frame %d names no function of the funcTable (%d functions)", p.index, f, t.FuncTable.len())
	}
	name, ok := str(t.FuncTable.column("name", -1)(fi))
	if !ok {
		return nil, gr.r.Errorf("%s: function %d has no name string", p.index, fi)
	}
	sf := srcFunc{name: name}
	if l, ok := t.FuncTable.column("lineNumber", -1)(fi).index(); ok {
		sf.line = l
	}
	if c, ok := t.FuncTable.column("columnNumber", -1)(fi).index(); ok {
		sf.col = c
	}
	file, _ := str(t.FuncTable.column("fileName", -1)(fi))
	if src, ok := t.FuncTable.column("source", -1)(fi).index(); ok && file == "" {
		file, _ = str(p.top.Shared.Sources.column("filename", -1)(src))
	}
	res, hasRes := t.FuncTable.column("resource", -1)(fi).index()
	lib := -1
	if hasRes {
		if l, ok := t.ResourceTable.column("lib", -1)(res).index(); ok && l < len(libs) {
			lib = l
		}
	}
	switch {
	case file != "":
		sf.img = b.fileImage(file)
	case lib >= 0:
		sf.img = "lib " + geckoLibName(libs[lib])
		b.image(sf.img, geckoLibName(libs[lib]))
		if a := t.FrameTable.column("address", -1)(f); a.kind == '0' && a.v >= 0 {
			gf.addr, gf.hasAddr, gf.lib = uint64(a.v), true, lib
		}
	case hasRes:
		rn, _ := str(t.ResourceTable.column("name", -1)(res))
		sf.img = b.fileImage(rn)
	default:
		sf.img = b.fileImage("")
	}
	gf.fn = b.fn(sf)
	return gf, nil
}

// geckoLibName is a library's image name: its name, the base name of a
// path (older profiles name their libraries by their path:
// "/Applications/Firefox.app/Contents/MacOS/firefox", "C:\\app\\xul.dll").
func geckoLibName(l geckoLib) string {
	name := l.Name
	if name == "" {
		name = l.Path
	}
	if i := strings.LastIndexAny(name, `/\`); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	if name == "" {
		return "[unknown]"
	}
	return name
}
