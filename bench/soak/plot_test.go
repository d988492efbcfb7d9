package soak

import (
	"fmt"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// plotSamples draws one panel per growth rule over the run's minutes,
// each from zero so that a flat line looks flat, and writes a PNG.
func plotSamples(samples []sample, path string) error {
	if len(samples) == 0 {
		return fmt.Errorf("plot %s: no samples", path)
	}
	rows := make([][]*plot.Plot, 0, len(growthRules))
	for _, r := range growthRules {
		p := plot.New()
		p.Title.Text = r.metric
		if r.unit != "" {
			p.Title.Text += " (" + r.unit + ")"
		}
		p.X.Label.Text = "minutes"
		pts := make(plotter.XYs, len(samples))
		for i, s := range samples {
			pts[i].X = s.At.Minutes()
			pts[i].Y = float64(r.get(s)) / r.scale
		}
		line, dots, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", r.metric, err)
		}
		dots.Radius = vg.Points(1.5)
		p.Add(plotter.NewGrid(), line, dots)
		p.Y.Min = 0
		if p.Y.Max <= 0 {
			p.Y.Max = 1
		}
		p.Y.Max *= 1.15
		rows = append(rows, []*plot.Plot{p})
	}
	img := vgimg.New(vg.Points(640), vg.Points(180*float64(len(rows))))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter * 3,
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return f.Close()
}
