// Package content compresses what both stores keep of a policy: its text
// and its summary. Stored bytes start with an encoding byte, so every
// encoding ever written stays readable:
//
//   - 0x1f (gzip's own magic): gzip at BestSpeed, written before issue 9.
//   - 0x01: raw DEFLATE (level 6) with the preset dictionary dict1.txt,
//     built from EU and UK documents; 0x03: the same with dict2.txt, built
//     from California documents. Written by template versions up to
//     2026-11-23.1.
//   - 0x04: a Zstandard frame (RFC 8878) at the fastest level with dict1.txt
//     as a raw-content dictionary; 0x05: the same with dict2.txt. What
//     Compress writes now: policies are mostly the same legal sentences, so
//     a dictionary of them shrinks a 22 KB document to about 2 KB where
//     gzip alone reaches 6 KB (docs/STORAGE.md), and Zstandard does it in a
//     tenth of DEFLATE's time, because its encoder keeps the dictionary's
//     hash tables between documents where a DEFLATE writer hashes the
//     dictionary again on every Reset (DECISIONS.md 30). Compress picks
//     dict2.txt for text that names California, the CCPA or US-CA (a
//     summary's jurisdiction): a wrong pick costs size (about 1.7 times),
//     never correctness, and trying both would double the CPU time.
//   - 0x06: an S2 block (klauspost/compress/s2, Snappy's successor) with
//     dict1.txt as its dictionary, after the CRC-32C of the text (4 bytes,
//     big-endian: an S2 block has no checksum of its own); 0x07: the same
//     with dict2.txt. What CompressFast writes: about a quarter of
//     Compress's CPU time for about 1.3 times its bytes, for the bolt
//     store, which pays for CPU time on the generate path and not by the
//     byte (DECISIONS.md 34). The dictionary is picked as for Compress.
//   - 0x02: raw DEFLATE with dict1.txt followed by a base text the caller
//     supplies on both sides (CompressDelta): a copy of something stored
//     anyway costs only its differences.
//
// The dictionaries are frozen: changing one byte of one makes every item
// written with it unreadable (TestDictionariesAreFrozen). A better
// dictionary is a new file with a new encoding byte (TestBuildDictionary
// writes one).
//
// DEFLATE writers and readers are pooled (a writer's tables cost about a
// megabyte); the Zstandard encoders and decoders are made on first use, not
// at init, so a function that never stores pays nothing at cold start.
package content

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

var (
	//go:embed dict1.txt
	dict1 []byte
	//go:embed dict2.txt
	dict2 []byte
)

// Encoding bytes.
const (
	encDict1 = 0x01
	encDelta = 0x02
	encDict2 = 0x03
	encZstd1 = 0x04
	encZstd2 = 0x05
	encS2a   = 0x06
	encS2b   = 0x07
	encGzip  = 0x1f
)

// dictionary is one of the preset dictionaries, with the Zstandard
// encoder and decoder and the S2 dictionary that use it.
type dictionary struct {
	enc   byte // the Zstandard encoding byte, also the frame's dictionary id
	encS2 byte // the S2 encoding byte
	codec func() (*codec, error)
	s2    func() *s2.Dict
}

// codec is a dictionary's Zstandard encoder and decoder.
type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func newDictionary(enc, encS2 byte, data []byte) *dictionary {
	d := &dictionary{enc: enc, encS2: encS2}
	// The first repeat offset is part of the format: a decoder needs the
	// same one. Offset 0 is as good as a searched one on our documents.
	d.s2 = sync.OnceValue(func() *s2.Dict { return s2.MakeDictManual(data, 0) })
	id := uint32(enc)
	d.codec = sync.OnceValues(func() (*codec, error) {
		// EncodeAll and DecodeAll are safe for concurrent use; each keeps
		// up to GOMAXPROCS states, which hold the dictionary's tables.
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderDictRaw(id, data), zstd.WithEncoderCRC(true), zstd.WithLowerEncoderMem(true))
		if err != nil {
			return nil, err
		}
		dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(id, data), zstd.WithDecoderMaxMemory(maxContent))
		if err != nil {
			return nil, err
		}
		return &codec{enc: e, dec: dec}, nil
	})
	return d
}

// maxContent bounds what a stored item may decompress to: far above the
// largest document (a few hundred KB), far below what would hurt.
const maxContent = 64 << 20

// dictionaries are indexed by Zstandard encoding byte - encZstd1.
var dictionaries = []*dictionary{newDictionary(encZstd1, encS2a, dict1), newDictionary(encZstd2, encS2b, dict2)}

func (d *dictionary) compress(s string) ([]byte, error) {
	c, err := d.codec()
	if err != nil {
		return nil, fmt.Errorf("compress content: %w", err)
	}
	out := make([]byte, 1, 1+len(s)/8)
	out[0] = d.enc
	return c.enc.EncodeAll(unsafe.Slice(unsafe.StringData(s), len(s)), out), nil
}

var (
	gzipReaders  sync.Pool // *gzip.Reader; made on first use, as NewReader needs input
	flateReaders sync.Pool // io.ReadCloser implementing flate.Resetter
)

// Compress returns s encoded with the dictionary for its kind of text.
func Compress(s string) ([]byte, error) {
	return dictionaryFor(s).compress(s)
}

// CompressFast returns s encoded with S2 and the dictionary for its kind of
// text: about a quarter of Compress's CPU time for about 1.3 times its
// bytes. Decompress reads it.
func CompressFast(s string) ([]byte, error) {
	d := dictionaryFor(s)
	text := unsafe.Slice(unsafe.StringData(s), len(s))
	n := s2.MaxEncodedLen(len(text))
	if n < 0 {
		return nil, fmt.Errorf("compress content: %w", s2.ErrTooLarge)
	}
	// The block is made in a pooled buffer of the worst-case size and
	// copied out: kept values are a tenth of that.
	scratch, _ := s2Buffers.Get().(*[]byte)
	if scratch == nil {
		scratch = new([]byte)
	}
	if cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	block := d.s2().Encode((*scratch)[:n], text)
	out := make([]byte, 5, 5+len(block))
	out[0] = d.encS2
	binary.BigEndian.PutUint32(out[1:], crc32c(text))
	out = append(out, block...)
	if cap(*scratch) <= 1<<20 { // a rare huge text's buffer is not kept
		s2Buffers.Put(scratch)
	}
	return out, nil
}

// s2Buffers hold CompressFast's scratch (*[]byte).
var s2Buffers sync.Pool

// crc32c is the CRC-32C (Castagnoli) of b. hash/crc32 keeps one
// Castagnoli table, made on the first request for it; the s2 and zstd
// packages ask for it at their own init, so every binary that links this
// package pays for the table at cold start whether or not it stores, and
// asking here costs only the lookup.
func crc32c(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

func dictionaryFor(s string) *dictionary {
	if strings.Contains(s, "California") || strings.Contains(s, "CCPA") || strings.Contains(s, `"US-CA"`) {
		return dictionaries[1]
	}
	return dictionaries[0]
}

// CompressDelta returns s encoded against base: Decompress needs base again
// (DecompressDelta).
func CompressDelta(s, base string) ([]byte, error) {
	zw, err := flate.NewWriterDict(io.Discard, flate.DefaultCompression, deltaDict(base))
	if err != nil {
		return nil, fmt.Errorf("compress content: %w", err)
	}
	return deflate(zw, encDelta, s)
}

func deflate(zw *flate.Writer, enc byte, s string) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, 1+len(s)/8))
	buf.WriteByte(enc)
	zw.Reset(buf)
	if _, err := io.WriteString(zw, s); err != nil {
		return nil, fmt.Errorf("compress content: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress content: %w", err)
	}
	return buf.Bytes(), nil
}

// deltaDict is the dictionary of a delta: DEFLATE reaches back 32 KB, so
// the base comes last and dict1 fills what is left of the window.
func deltaDict(base string) []byte {
	const window = 32 << 10
	d := make([]byte, 0, window+len(base))
	if len(base) < window {
		d = append(d, dict1[max(0, len(dict1)-(window-len(base))):]...)
	}
	return append(d, base...)
}

// ErrNeedsBase: the bytes are a delta (CompressDelta), and Decompress has no
// base to apply it to.
var ErrNeedsBase = errors.New("content is a delta: its base is needed")

// Decompress reverses Compress, and reads the gzip of earlier versions.
func Decompress(b []byte) (string, error) {
	return decompress(b, nil)
}

// DecompressDelta reverses CompressDelta with the same base; it reads
// whatever Decompress reads as well.
func DecompressDelta(b []byte, base string) (string, error) {
	return decompress(b, &base)
}

func decompress(b []byte, base *string) (string, error) {
	if len(b) == 0 {
		return "", errors.New("decompress content: empty")
	}
	var out bytes.Buffer
	switch b[0] {
	case encGzip:
		zr, err := gzipReader(b)
		if err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
		defer gzipReaders.Put(zr)
		if _, err := io.Copy(&out, zr); err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
	case encZstd1, encZstd2:
		c, err := dictionaries[b[0]-encZstd1].codec()
		if err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
		text, err := c.dec.DecodeAll(b[1:], make([]byte, 0, 12*len(b)))
		if err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
		return string(text), nil
	case encS2a, encS2b:
		if len(b) < 5 {
			return "", errors.New("decompress content: truncated")
		}
		block := b[5:]
		n, err := s2.DecodedLen(block)
		if err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
		if n > maxContent {
			return "", fmt.Errorf("decompress content: %d bytes is too large", n)
		}
		text, err := dictionaries[b[0]-encS2a].s2().Decode(make([]byte, n), block)
		if err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
		if crc32c(text) != binary.BigEndian.Uint32(b[1:]) {
			return "", errors.New("decompress content: checksum mismatch")
		}
		return unsafe.String(unsafe.SliceData(text), len(text)), nil // text is not kept elsewhere
	case encDict1, encDict2, encDelta:
		dict := dict1
		if b[0] == encDict2 {
			dict = dict2
		}
		if b[0] == encDelta {
			if base == nil {
				return "", ErrNeedsBase
			}
			dict = deltaDict(*base)
		}
		out.Grow(8 * len(b))
		zr, _ := flateReaders.Get().(io.ReadCloser)
		if zr == nil {
			zr = flate.NewReaderDict(bytes.NewReader(b[1:]), dict)
		} else if err := zr.(flate.Resetter).Reset(bytes.NewReader(b[1:]), dict); err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
		defer flateReaders.Put(zr)
		if _, err := io.Copy(&out, zr); err != nil {
			return "", fmt.Errorf("decompress content: %w", err)
		}
	default:
		return "", fmt.Errorf("decompress content: unknown encoding 0x%02x", b[0])
	}
	return out.String(), nil
}

func gzipReader(b []byte) (*gzip.Reader, error) {
	if r, ok := gzipReaders.Get().(*gzip.Reader); ok {
		return r, r.Reset(bytes.NewReader(b))
	}
	return gzip.NewReader(bytes.NewReader(b))
}
