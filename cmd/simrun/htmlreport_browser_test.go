package main

import (
	"context"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/report"
)

// The report is checked in a real browser, not only as text: an escaping
// slip, a page that does not lay out, or a porcupine frame that draws
// nothing all show in a screenshot. The test needs Chromium (apt-get
// install chromium) and is skipped, saying so, without it. Set
// SIMRUN_SCREENSHOTS=DIR to keep the screenshots and look at them.

// findBrowser returns a Chromium-like browser on PATH, or "".
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// screenshot loads file in headless Chromium at width×height and returns
// the decoded PNG. Each call has a profile of its own, so tests (and
// engineers) running Chromium at once do not share one.
func screenshot(t *testing.T, browser, file, out string, width, height int) image.Image {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=5000", "--screenshot="+out,
		fmt.Sprintf("--window-size=%d,%d", width, height), "file://"+file)
	cmd.WaitDelay = 5 * time.Second
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, msg)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", out, err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("screenshot %s is %v, want %dx%d", out, b, width, height)
	}
	return img
}

// pixels counts the pixels of img that match.
func pixels(img image.Image, match func(r, g, b uint32) bool) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if match(r>>8, g>>8, b>>8) {
				n++
			}
		}
	}
	return n
}

// colours counts the distinct colours of img, up to limit.
func colours(img image.Image, limit int) int {
	seen := map[[3]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y && len(seen) < limit; y += 3 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	return len(seen)
}

// failRed is the page's FAIL colour, #c62828; invalidRed is porcupine's
// red for an illegal linearization point, rgba(255, 0, 0, .5) on white.
func failRed(r, g, b uint32) bool { return r > 180 && r < 215 && g < 60 && b < 60 }
func invalidRed(r, g, b uint32) bool {
	return r > 235 && g > 90 && g < 170 && b > 90 && b < 170 && g-b < 20
}

// framed writes a page that shows doc in a frame the size of the window.
func framed(t *testing.T, dir, name string, doc []byte) string {
	t.Helper()
	page := `<!doctype html><html><body style="margin:0"><iframe style="border:0;width:100vw;height:100vh" srcdoc="` +
		html.EscapeString(string(doc)) + `"></iframe></body></html>`
	path := filepath.Join(dir, name+".html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the report is not checked in a browser (three screenshots take tens of seconds)")
	}
	browser := findBrowser()
	if browser == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the report is not checked in a browser " +
			"(apt-get install chromium)")
	}
	dir := t.TempDir()
	shots := os.Getenv("SIMRUN_SCREENSHOTS")
	if shots == "" {
		shots = dir
	}
	path := filepath.Join(dir, "report.html")
	args := append([]string{"replay", "--report", path, "--out", dir}, failingSeed...)
	if _, errOut, code := simrun(t, nil, args...); code != 1 {
		t.Fatalf("replay --report: exit %d, want 1: %s", code, errOut)
	}

	// The whole page, porcupine's frame included, in one tall screenshot;
	// its top 1000 rows are what a 1400×1000 window shows (nothing on the
	// page is sized by the window's height), so one browser run serves both.
	whole := screenshot(t, browser, path, filepath.Join(shots, "report-whole.png"), 1400, 3000)
	top := whole.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, 0, 1400, 1000))
	if n := colours(top, 1000); n < 100 {
		t.Errorf("the report's screenshot has %d colours: a blank or unstyled page", n)
	}
	if n := pixels(top, failRed); n < 1400*40 {
		t.Errorf("the report's screenshot has %d pixels of the FAIL red, want the header's band at least", n)
	}
	if n := pixels(whole, invalidRed); n < 50 {
		t.Errorf("the whole page shows %d pixels of porcupine's invalid-point red: its frame is not at the error", n)
	}

	// Porcupine's page alone in a window-sized frame, with the scroll the
	// report adds, against the page as porcupine wrote it (which opens at
	// the history's start). In a frame, because headless Chromium's
	// screenshot of a scrolled top-level page comes out blank.
	orig, err := os.ReadFile(filepath.Join(dir, linearize.ArtifactHTML))
	if err != nil {
		t.Fatal(err)
	}
	scrolled := screenshot(t, browser, framed(t, dir, "scrolled", report.ScrollToFirstError(orig)),
		filepath.Join(shots, "porcupine-scrolled.png"), 1400, 1000)
	unscrolled := screenshot(t, browser, framed(t, dir, "unscrolled", orig),
		filepath.Join(shots, "porcupine-unscrolled.png"), 1400, 1000)
	s, u := pixels(scrolled, invalidRed), pixels(unscrolled, invalidRed)
	t.Logf("porcupine's invalid-point red: %d pixels scrolled to the first error, %d at the start", s, u)
	if s < 50 || s <= u {
		t.Errorf("scrolled to the first error, porcupine shows %d pixels of its invalid-point red (%d unscrolled)", s, u)
	}
}
