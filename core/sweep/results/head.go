package results

import (
	"bytes"
	"encoding/json"
	"errors"
)

// head is a line as the passes that check a file before it is read (hold
// it to its runs, count it, order it) need it: every field of Line
// decoded as Parse decodes it (numbers as json.Number, unknown fields
// refused) but two. The metrics, most of a line and of its cost, are
// checked to be a table (or null) and skipped; the params are checked so
// and kept as the line holds them, for validateHead to compare with the
// plan's without decoding them.
type head struct {
	Line
	// Params and Metrics shadow Line's: encoding/json fills the shallower
	// of two fields of one name, so the embedded ones stay nil.
	Params  table `json:"params"`
	Metrics table `json:"metrics"`
}

// table is a JSON value that must be what a map[string]any accepts (an
// object, or null), kept as it is written and not decoded: the decoder
// has checked its syntax when it hands its bytes over.
type table []byte

// errNotTable is a table that is not one; parseHead then has Parse say
// why, in its words.
var errNotTable = errors.New("not a table")

// UnmarshalJSON accepts an object or null, as a map does, and keeps its
// text (null as none).
func (t *table) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '{':
		*t = append((*t)[:0], b...) // b is the decoder's: copied
		return nil
	case string(b) == "null":
		*t = nil
		return nil
	}
	return errNotTable
}

// parseHead is Parse without decoding the params or the metrics: the
// line it returns has every field but those two (nil), and params are
// the params' text as the line holds it (nil for null or none). It
// accepts exactly the lines Parse accepts, and refuses the others with
// Parse's error (it asks Parse for it), so a pass that checks a file with
// it refuses what a pass reading it whole with Parse would.
func parseHead(raw []byte) (l Line, params []byte, err error) {
	var h head
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&h); err != nil || complete(h.Line) != nil {
		l, err := Parse(raw)
		l.Params, l.Metrics = nil, nil
		return l, nil, err
	}
	return h.Line, h.Params, nil
}

// parseLineHead is parseHead for the readers that want no params.
func parseLineHead(raw []byte) (Line, error) {
	l, _, err := parseHead(raw)
	return l, err
}
