package report

import (
	"bytes"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The plots are set in Liberation Sans, whose metrics gonum measures the
// labels with. The SVG names the font without embedding it (that would
// add hundreds of KiB to each plot), so a browser lacking it draws
// Arial or Helvetica (the same metrics), or else its sans-serif, which
// can be a fifth wider (DejaVu Sans): fontSlack is the margin the
// overlap checks and the legend's column keep for that. Text placed by
// its right end (the y axis's labels) is placed from gonum's measure, so
// a wider font runs past its end there: Liberation Sans (Debian's
// fonts-liberation, which Chrome depends on) avoids that.
const fontSlack = 1.25

// sansFamily is the font list the SVG asks for, metric twins first.
const sansFamily = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"

// sans sets a text font's typeface to Liberation Sans, keeping its size.
func sans(f *font.Font) {
	f.Typeface, f.Variant = "Liberation", "Sans"
}

// newPlot is a plot whose texts are in Liberation Sans.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		sans(f)
	}
	return p
}

// newLegend is a legend in Liberation Sans, at the tick labels' size.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	sans(&l.TextStyle.Font)
	l.TextStyle.Font.Size = 10
	l.Padding = 2 // points between entries
	return l
}

// svgBytes writes c, naming fallbacks for the font.
func svgBytes(c *vgsvg.Canvas) ([]byte, error) {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte(sansFamily)), nil
}
