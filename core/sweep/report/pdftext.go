package report

import (
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// pdfCanvas is gonum's PDF canvas writing only what its fonts can say:
// vgpdf encodes text in code page 1252 (Windows Western), so a rune
// outside it (√, −, ≤, a Greek letter but µ) would print as two or three
// wrong letters. Each is spelt in ASCII instead (pdfSpelling), or else
// as "?"; the SVG and PNG figures keep the rune.
type pdfCanvas struct{ *vgpdf.Canvas }

// FillString implements vg.Canvas.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.Canvas.FillString(f, pt, pdfSafe(s))
}

// pdfSpelling spells the runes outside code page 1252 that a figure's
// own texts use, or a sweep file's labels and units likely do.
var pdfSpelling = map[rune]string{
	'√': "sqrt ", '−': "-", '≤': "<=", '≥': ">=", '≠': "!=", '≈': "~", '∝': "~", '∞': "inf",
	'α': "alpha", 'β': "beta", 'γ': "gamma", 'δ': "delta", 'Δ': "Delta", 'λ': "lambda", 'σ': "sigma", 'τ': "tau", 'π': "pi",
}

// pdfSafe is s with every rune outside code page 1252 spelt as
// pdfSpelling says, or "?".
func pdfSafe(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !inCP1252(r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case inCP1252(r):
			b.WriteRune(r)
		case pdfSpelling[r] != "":
			b.WriteString(pdfSpelling[r])
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// cp1252High are the runes code page 1252 puts at 0x80…0x9F.
const cp1252High = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"

// inCP1252: code page 1252 has r.
func inCP1252(r rune) bool {
	return r < 0x80 || (r >= 0xA0 && r <= 0xFF) || strings.ContainsRune(cp1252High, r)
}
