package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	gtext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The figure formats: SVG (for the page and the web), PDF (what LaTeX
// includes, fonts embedded) and PNG (slides, at pngDPI).
const (
	FormatSVG = "svg"
	FormatPDF = "pdf"
	FormatPNG = "png"
)

// Formats are the figure formats the report draws, in the order it
// writes them.
var Formats = []string{FormatSVG, FormatPDF, FormatPNG}

// DefaultFormats are the formats drawn when the sweep file's [report]
// and proflab report --format name none.
var DefaultFormats = []string{FormatSVG}

// pngDPI is a PNG figure's resolution: what a journal asks of line art
// printed at its size (a 16 cm plot is 1890 pixels wide).
const pngDPI = 300

// CheckFormats holds formats to Formats: each known, none twice. The
// error names the first bad one and lists the known.
func CheckFormats(formats []string) error {
	for i, f := range formats {
		if !slices.Contains(Formats, f) {
			return fmt.Errorf("%q is not a figure format; the formats are %s", f, strings.Join(Formats, ", "))
		}
		if slices.Contains(formats[:i], f) {
			return fmt.Errorf("%q is listed twice", f)
		}
	}
	if len(formats) == 0 {
		return fmt.Errorf("no format; list one or more of %s", strings.Join(Formats, ", "))
	}
	return nil
}

// A PDF records when it was made, which would make two reports of one
// sweep differ: every PDF the report writes says 2000-01-01 instead, and
// lists its fonts in a fixed order. fpdf keeps both as process-wide
// defaults, set here once before any goroutine can draw.
func init() {
	fixed := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	fpdf.SetDefaultCreationDate(fixed)
	fpdf.SetDefaultModificationDate(fixed)
	fpdf.SetDefaultCatalogSort(true)
}

// figure is one plot the report draws: what report.html says of it, and
// how to paint it on a canvas of its size, in any format.
type figure struct {
	title   string
	caption string // what the plot draws, in words, for report.html
	base    string // the file's path without its extension, relative to the output folder
	w, h    vg.Length
	paint   func(c draw.Canvas)
	svg     []byte // the SVG, for report.html
}

// file is the figure's file in format.
func (f figure) file(format string) string { return f.base + "." + format }

// newFigure paints a figure of w × h once as SVG, for the page.
func newFigure(title, caption, base string, w, h vg.Length, paint func(draw.Canvas)) (figure, error) {
	f := figure{title: title, caption: caption, base: base, w: w, h: h, paint: paint}
	svg, err := f.encode(FormatSVG)
	f.svg = svg
	return f, err
}

// encode draws the figure in format.
func (f figure) encode(format string) ([]byte, error) {
	switch format {
	case FormatSVG:
		c := vgsvg.New(f.w, f.h)
		f.paint(draw.New(c))
		return svgBytes(c)
	case FormatPDF:
		c := vgpdf.New(f.w, f.h)
		f.paint(draw.New(pdfCanvas{c}))
		var b bytes.Buffer
		_, err := c.WriteTo(&b)
		return b.Bytes(), err
	case FormatPNG:
		c := vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
		f.paint(draw.New(c))
		var b bytes.Buffer
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(&b)
		return b.Bytes(), err
	}
	return nil, fmt.Errorf("%q is not a figure format", format)
}

// The heading's texts: a title, and a smaller grey subtitle under it.
const (
	titleSize    = 12 // points
	subtitleSize = 10
	headingGap   = 6 // points above the title, and between the heading and the plot
)

// headingStyle is the title's or subtitle's text style.
func headingStyle(size vg.Length, clr color.Color) gtext.Style {
	f := font.Font{Size: size}
	sans(&f)
	return gtext.Style{Color: clr, Font: f, Handler: newPlot().TextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
}

// heading draws title and subtitle ("": none) centred at the top of c,
// clear of its edge, and returns the canvas below them. Gonum's own
// title sits on the top edge; this one keeps headingGap above it.
func heading(c draw.Canvas, title, subtitle string) draw.Canvas {
	y := c.Max.Y - headingGap
	x := (c.Min.X + c.Max.X) / 2
	for _, t := range []struct {
		text string
		sty  gtext.Style
	}{{title, headingStyle(titleSize, color.Black)}, {subtitle, headingStyle(subtitleSize, color.Gray{Y: 70})}} {
		if t.text == "" {
			continue
		}
		c.FillText(t.sty, vg.Point{X: x, Y: y}, t.text)
		y -= t.sty.Height(t.text) + 2
	}
	if y == c.Max.Y-headingGap {
		return c
	}
	return draw.Crop(c, 0, 0, 0, y-headingGap-c.Max.Y)
}

// drawPlot draws p on c with its y axis's title centred on the data
// area. Gonum centres it on the axis's arithmetic middle, which on a log
// axis lies near the top: the title's box then overhangs the top, and
// gonum shrinks the data area by the overhang (a third of the height
// for a y axis of two decades). The title is drawn here instead, as
// gonum draws it, in a column to the left.
func drawPlot(c draw.Canvas, p *plot.Plot) {
	text := p.Y.Label.Text
	if text == "" {
		p.Draw(c)
		return
	}
	p.Y.Label.Text = ""
	defer func() { p.Y.Label.Text = text }()
	sty := p.Y.Label.TextStyle
	h := sty.Height(text)
	inner := draw.Crop(c, h+p.Y.Label.Padding, 0, 0, 0)
	data := p.DataCanvas(inner)
	turned := sty
	turned.Rotation += math.Pi / 2
	descent := sty.FontExtents().Descent
	c.FillText(turned, vg.Point{X: c.Min.X + h - descent, Y: data.Center().Y}, text)
	p.Draw(inner)
}
