package guided

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A token is an input written as one printable word: what simrun prints
// for a failing guided run, what replay --input reads and what a corpus
// file keeps. Its body is a list of unsigned integers, per stream (plan,
// schedule, faults): 1 if seeded else 0, the tail seed, the bias, the
// number of choices, the choices.
//
// g2 (written since session 38) packs each integer as nibble varints:
// 3 bits a nibble, least significant first, the nibble's high bit set
// when more follow; two nibbles a byte, high nibble first, an odd count
// padded with a zero nibble; then base64url without padding. Every byte
// is fixed by this comment. g1 (before) deflated byte varints with
// compress/flate, whose output is the Go release's choice: Go 1.27
// writes other bytes than Go 1.26 for the same input, so the same run
// printed another token, and a corpus file other bytes, on another Go.
// g1 tokens are still read (inflating is fixed by the format).
const (
	tokenPrefix   = "g2:"
	tokenPrefixG1 = "g1:"
)

// Token writes in as a g2 token.
func (in Input) Token() string {
	var w nibbleWriter
	for _, s := range []Stream{in.Plan, in.Schedule, in.Faults} {
		for _, x := range streamHeader(s) {
			w.uvarint(x)
		}
		for _, c := range s.Choices {
			w.uvarint(uint64(max(c, 0)))
		}
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(w.b)
}

func streamHeader(s Stream) [4]uint64 {
	seeded := uint64(0)
	if s.Seeded {
		seeded = 1
	}
	return [4]uint64{seeded, s.Tail, uint64(s.Bias), uint64(len(s.Choices))}
}

// maxTokenChoices bounds a stream read from a token.
const maxTokenChoices = 1 << 22

// ParseToken reads a g2 or g1 token; anything else is an error.
func ParseToken(token string) (Input, error) {
	token = strings.TrimSpace(token)
	body, isG2 := strings.CutPrefix(token, tokenPrefix)
	if !isG2 {
		var isG1 bool
		if body, isG1 = strings.CutPrefix(token, tokenPrefixG1); !isG1 {
			return Input{}, fmt.Errorf("not a guided input: want %q followed by base64url", tokenPrefix)
		}
	}
	packed, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return Input{}, fmt.Errorf("not a guided input: %v", err)
	}
	var next func() (uint64, error)
	var rest func() error
	if isG2 {
		r := &nibbleReader{b: packed}
		next, rest = r.uvarint, r.end
	} else {
		raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(packed)), 8*maxTokenChoices))
		if err != nil {
			return Input{}, fmt.Errorf("not a guided input: %v", err)
		}
		r := bytes.NewReader(raw)
		next = func() (uint64, error) { return binary.ReadUvarint(r) }
		rest = func() error {
			if r.Len() != 0 {
				return fmt.Errorf("%d bytes after the streams", r.Len())
			}
			return nil
		}
	}
	var streams [3]Stream
	for i := range streams {
		if streams[i], err = readStream(next); err != nil {
			return Input{}, fmt.Errorf("not a guided input: stream %d: %v", i, err)
		}
	}
	if err := rest(); err != nil {
		return Input{}, fmt.Errorf("not a guided input: %v", err)
	}
	return Input{Plan: streams[0], Schedule: streams[1], Faults: streams[2]}, nil
}

func readStream(next func() (uint64, error)) (Stream, error) {
	var v [4]uint64
	for i := range v {
		x, err := next()
		if err != nil {
			return Stream{}, err
		}
		v[i] = x
	}
	if v[0] > 1 || v[2] > 1<<20 || v[3] > maxTokenChoices {
		return Stream{}, fmt.Errorf("implausible header %v", v)
	}
	s := Stream{Seeded: v[0] == 1, Tail: v[1], Bias: int(v[2])}
	for n := v[3]; n > 0; n-- {
		c, err := next()
		if err != nil || c > 1<<31 {
			return Stream{}, fmt.Errorf("bad choice")
		}
		s.Choices = append(s.Choices, int(c))
	}
	return s, nil
}

// nibbleWriter writes g2's nibble varints.
type nibbleWriter struct {
	b    []byte
	half bool // the last byte's low nibble is free
}

func (w *nibbleWriter) nibble(n byte) {
	if w.half {
		w.b[len(w.b)-1] |= n
	} else {
		w.b = append(w.b, n<<4)
	}
	w.half = !w.half
}

func (w *nibbleWriter) uvarint(x uint64) {
	for ; x >= 8; x >>= 3 {
		w.nibble(byte(x&7) | 8)
	}
	w.nibble(byte(x))
}

// nibbleReader reads them.
type nibbleReader struct {
	b   []byte
	pos int // in nibbles
}

var errNibbles = errors.New("truncated or overlong number")

func (r *nibbleReader) uvarint() (uint64, error) {
	var x uint64
	for shift := 0; r.pos < 2*len(r.b); shift += 3 {
		n := r.b[r.pos/2] >> (4 * (1 - r.pos%2)) & 0xf
		r.pos++
		if shift > 63 || shift == 63 && n > 1 { // past 64 bits
			return 0, errNibbles
		}
		x |= uint64(n&7) << shift
		if n&8 == 0 {
			return x, nil
		}
	}
	return 0, errNibbles
}

// end: nothing but the zero nibble that pads an odd count may follow.
func (r *nibbleReader) end() error {
	if left := 2*len(r.b) - r.pos; left > 1 || left == 1 && r.b[len(r.b)-1]&0xf != 0 {
		return fmt.Errorf("%d nibbles after the streams", left)
	}
	return nil
}
