package etlprof

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// ETL is Windows' trace file format: an .etl, or PerfView's .etl.zip.
var ETL = &profread.Format{
	Name:  "etl",
	About: "Windows' trace files (.etl, and PerfView's .etl.zip): what wpr, xperf, tracelog and PerfView write, CPU samples with their stacks",
	Detect: func(c *profread.Content) (any, bool) {
		if IsETL(c.Data) {
			return nil, true
		}
		if isZip(c.Data) {
			f, err := etlInZip(c.Data)
			if err == nil {
				return f, true
			}
			// a zip without an .etl: Read says what it holds, unless it
			// is an Instruments bundle, which the importer names itself
			return nil, !bytes.Contains(c.Data, []byte(".trace/"))
		}
		return nil, false
	},
	Read: read,
}

// IsETL says whether data starts as an .etl file does: a buffer header
// whose BufferSize is plausible, then the EventTrace header record (a
// SYSTEM header of hook 0x0000).
func IsETL(data []byte) bool {
	if len(data) < etl.BufferHeaderSize+etl.SystemHeaderSize {
		return false
	}
	size := binary.LittleEndian.Uint32(data[etl.OffBufferSize:])
	rec := data[etl.BufferHeaderSize:]
	kind := etl.HeaderType(rec[2])
	return size >= etl.BufferHeaderSize && size <= etl.MaxBufferSize &&
		(kind == etl.HeaderSystem32 || kind == etl.HeaderSystem64) && rec[3] == etl.HeaderFlags && rec[6] == 0 && rec[7] == 0
}

// IsTrace says whether data is an .etl file or a zip archive (which may
// hold one): content the etl format reads as a stream, a buffer at a time,
// not parsed whole as a binary pprof profile is.
func IsTrace(data []byte) bool { return IsETL(data) || isZip(data) }

// isZip says whether data starts as a zip archive does.
func isZip(data []byte) bool { return bytes.HasPrefix(data, []byte("PK\x03\x04")) }

// etlInZip is the one .etl file of a zip archive (PerfView's .etl.zip),
// or an error saying what the archive holds instead.
func etlInZip(data []byte) (*zip.File, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("the file starts as a zip archive but cannot be read as one (%v): give an intact .etl.zip", err)
	}
	var etls, others []string
	var found *zip.File
	for _, f := range z.File {
		if strings.EqualFold(path.Ext(f.Name), ".etl") {
			etls = append(etls, f.Name)
			found = f
		} else if !strings.HasSuffix(f.Name, "/") {
			others = append(others, f.Name)
		}
	}
	switch {
	case len(etls) == 1:
		return found, nil
	case len(etls) > 1:
		return nil, fmt.Errorf("the zip archive holds %d .etl files (%s): unzip it and import one", len(etls), strings.Join(etls, ", "))
	}
	held := "nothing"
	if len(others) > 0 {
		held = strings.Join(others[:min(len(others), 5)], ", ")
		if len(others) > 5 {
			held += fmt.Sprintf(" and %d more", len(others)-5)
		}
	}
	return nil, fmt.Errorf("the zip archive holds no .etl file (it holds %s): an .etl.zip, as PerfView writes it, holds the trace as NAME.etl", held)
}

// read imports an .etl, or the .etl of a zip archive.
func read(r *profread.Reading) error {
	var src io.Reader = bytes.NewReader(r.Data)
	inside := ""
	if isZip(r.Data) {
		f, ok := r.State.(*zip.File)
		if !ok {
			var err error
			if f, err = etlInZip(r.Data); err != nil {
				return r.Errorf("%v", err)
			}
		}
		if r.MaxContent > 0 && f.UncompressedSize64 > uint64(r.MaxContent) {
			return r.Errorf("the zip archive's %s inflates to %s, more than the %s an import reads (a third of the --memory budget, at most 256 MiB); nothing was inflated: raise --memory, or record a shorter trace",
				f.Name, input.Size(int64(min(f.UncompressedSize64, 1<<62))), input.Size(r.MaxContent))
		}
		rc, err := f.Open()
		if err != nil {
			return r.Errorf("the zip archive's %s cannot be read (%v): give an intact .etl.zip", f.Name, err)
		}
		defer rc.Close()
		src, inside = rc, f.Name
	} else if !IsETL(r.Data) {
		return r.Errorf("the file is not an .etl trace: it does not start with a buffer header and the EventTrace header record (an .etl file's first 104 bytes), nor is it a zip archive holding one")
	}
	tr, err := scan(r.Ctx, src)
	if err != nil {
		var fe *etl.FormatError
		if errors.As(err, &fe) {
			where := ""
			if inside != "" {
				where = " (the zip's " + inside + ")"
			}
			return r.Errorf("a damaged .etl file%s: %v", where, err)
		}
		if r.Ctx != nil && r.Ctx.Err() != nil {
			return err
		}
		return r.Errorf("%v", err)
	}
	syms, err := etl.ReadSymbols(bytes.NewReader(r.Options.Symbols), r.Options.SymbolsName)
	if err != nil {
		return r.Errorf("--symbols: %v", err)
	}
	return build(r, tr, syms, r.Options.SymbolsName)
}
