//! Task results to bytes and back, exactly (the payloads of the result
//! cache and of shard files, [`crate::core::run::cache`], [`crate::core::run::shard`];
//! DESIGN §10.1).
//!
//! The encoding is [postcard](https://docs.rs/postcard) 1 of the run's
//! serde derive: fields in declaration order, integers as varints, `f64`
//! as the 8 little-endian bytes of their bit pattern (so NaN, ±∞ and −0
//! come back exactly and a fold of decoded runs gives the same bytes as a
//! fold of the runs themselves), sequences and options with a length or
//! tag first. It has no framing of its own: the cache entry and the shard
//! record around it carry the magic, the length and the SHA-256
//! ([`crate::core::run::cache::seal`]).
//!
//! [`decode`] never panics and never allocates more than the input can
//! hold (serde preallocates a sequence only up to a cautious bound, then
//! grows it as items are read): reading past the end, a bad flag, tag or
//! varint is an error, and so is a byte left over after the value.

use std::io::{Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::core::error::{Error, Result};

/// The encoding's name and version, part of every cache key
/// ([`crate::core::run::identity::Identity::task_keys`]): entries written with
/// another encoding are a miss, never read.
pub const FORMAT: &str = "postcard/1";

/// Append the encoding of `value` to `out` (left as it was on an error).
pub fn encode<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    let len = out.len();
    encode_to(value, out).inspect_err(|_| out.truncate(len))
}

/// Bytes [`encode_to`] gathers before it hands them to its writer.
const CHUNK: usize = 64 << 10;

/// Write the encoding of `value` to `out` as it is made, 64 KiB
/// at a time: the same bytes as [`encode`], never held whole (a result
/// cache entry of 10^7 tenants' rows is gigabytes; DESIGN §10.2). A
/// failed write stops the encoding and is the error, naming the
/// writer's own error; what was written before it stays written.
pub fn encode_to<T: Serialize + ?Sized>(value: &T, out: &mut dyn Write) -> Result<()> {
    let flavor = ChunkedWrite {
        out,
        buf: Vec::with_capacity(CHUNK),
        failed: None,
    };
    let mut ser = postcard::Serializer { output: flavor };
    let encoded = value.serialize(&mut ser);
    let mut flavor = ser.output;
    let flushed = match encoded {
        Ok(()) => flavor.flush(),
        Err(e) => Err(e),
    };
    match (flushed, flavor.failed) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(io)) => Err(Error::input(format!("cannot write an encoded run: {io}"))),
        (Err(e), None) => Err(Error::input(format!("cannot encode a run: {e}"))),
    }
}

/// A postcard output that gathers bytes and writes them in chunks,
/// keeping the writer's first error (postcard's own error type cannot
/// carry it).
struct ChunkedWrite<'a> {
    out: &'a mut dyn Write,
    buf: Vec<u8>,
    failed: Option<std::io::Error>,
}

impl ChunkedWrite<'_> {
    fn flush(&mut self) -> postcard::Result<()> {
        if let Err(e) = self.out.write_all(&self.buf) {
            self.failed = Some(e);
            return Err(postcard::Error::SerializeBufferFull);
        }
        self.buf.clear();
        Ok(())
    }
}

impl postcard::ser_flavors::Flavor for ChunkedWrite<'_> {
    type Output = ();

    #[inline]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.buf.push(data);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// The value [`encode`] wrote into `bytes`, which must hold it and nothing
/// more.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let mut de = postcard::Deserializer::from_bytes(bytes);
    let value = T::deserialize(&mut de);
    // What is left after the value (or where reading it stopped).
    let left = de.finalize().map_or(0, <[u8]>::len);
    let at = bytes.len() - left;
    match value {
        Err(e) => Err(Error::input(format!(
            "encoded run of {} bytes cannot be read at byte {at}: {e}",
            bytes.len()
        ))),
        Ok(_) if left > 0 => Err(Error::input(format!(
            "encoded run: {left} unread bytes after the run (of {} bytes)",
            bytes.len()
        ))),
        Ok(v) => Ok(v),
    }
}

/// Bytes [`decode_from`] reads from its input at a time.
const READ_CHUNK: usize = 64 << 10;

/// [`decode`] of the encoding `input` yields, read as the value is
/// decoded, 64 KiB at a time: never held whole (a stored run of 10^6
/// tenants is 150 MB; DESIGN §10.2). `input` must yield the value and
/// nothing more. The same value as [`decode`] of the same bytes, and the
/// same guarantees: no panic, and no allocation beyond what the input
/// holds (a length is read as far as the input goes, never reserved).
/// A value that borrows from its input (a `&str`) cannot be read so.
pub fn decode_from<T: DeserializeOwned>(input: &mut dyn Read) -> Result<T> {
    let flavor = ChunkedRead {
        input: &mut *input,
        st: ReadState::default(),
    };
    let mut de = postcard::Deserializer::from_flavor(flavor);
    let value = T::deserialize(&mut de);
    let st = de.finalize().unwrap_or_default();
    let at = st.before + st.pos as u64;
    let value = match (value, st.failed) {
        (Ok(v), None) => v,
        (_, Some(io)) => {
            return Err(Error::input(format!(
                "cannot read an encoded run at byte {at}: {io}"
            )));
        }
        (Err(e), None) => {
            return Err(Error::input(format!(
                "encoded run cannot be read at byte {at}: {e}"
            )));
        }
    };
    // Nothing may follow the value: neither bytes read ahead nor more
    // input.
    let ahead = st.end - st.pos;
    let more = loop {
        match input.read(&mut [0u8; 1]) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(Error::input(format!(
                    "cannot read an encoded run after byte {at}: {e}"
                )));
            }
        }
    };
    if ahead + more > 0 {
        return Err(Error::input(format!(
            "encoded run: unread bytes after the run (of {at} bytes)"
        )));
    }
    Ok(value)
}

/// What [`ChunkedRead`] has read: `buf[pos..end]` is read and not yet
/// taken, `before` counts the bytes taken before `buf[0]`; the reader's
/// first error (postcard's own error type cannot carry it).
#[derive(Default)]
struct ReadState {
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    before: u64,
    failed: Option<std::io::Error>,
}

/// A postcard input over a reader ([`decode_from`]).
struct ChunkedRead<'a> {
    input: &'a mut dyn Read,
    st: ReadState,
}

impl ChunkedRead<'_> {
    /// Make `buf[pos..end]` hold at least `n` bytes. The buffer (64 KiB
    /// to start with) doubles only when what was read fills it, so it is
    /// never more than twice what the reader gave plus a chunk: a length
    /// the input cannot hold ends at the input's end, not in an
    /// allocation.
    fn fill(&mut self, n: usize) -> postcard::Result<()> {
        let st = &mut self.st;
        if st.end - st.pos >= n {
            return Ok(());
        }
        st.buf.copy_within(st.pos..st.end, 0);
        st.before += st.pos as u64;
        st.end -= st.pos;
        st.pos = 0;
        while st.end < n {
            if st.end == st.buf.len() {
                let more = st.buf.len().max(READ_CHUNK);
                st.buf.resize(st.buf.len() + more, 0);
            }
            match self.input.read(&mut st.buf[st.end..]) {
                Ok(0) => return Err(postcard::Error::DeserializeUnexpectedEnd),
                Ok(got) => st.end += got,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    st.failed = Some(e);
                    return Err(postcard::Error::DeserializeUnexpectedEnd);
                }
            }
        }
        Ok(())
    }
}

impl<'de> postcard::de_flavors::Flavor<'de> for ChunkedRead<'de> {
    type Remainder = ReadState;
    type Source = ();

    #[inline]
    fn pop(&mut self) -> postcard::Result<u8> {
        if self.st.pos == self.st.end {
            self.fill(1)?;
        }
        let b = self.st.buf[self.st.pos];
        self.st.pos += 1;
        Ok(b)
    }

    /// Borrowed bytes would have to outlive the buffer: refused (no
    /// stored run borrows from its encoding).
    fn try_take_n(&mut self, _ct: usize) -> postcard::Result<&'de [u8]> {
        Err(postcard::Error::DeserializeBadEncoding)
    }

    #[inline]
    fn try_take_n_temp<'b>(&'b mut self, ct: usize) -> postcard::Result<&'b [u8]>
    where
        'de: 'b,
    {
        self.fill(ct)?;
        let at = self.st.pos;
        self.st.pos += ct;
        Ok(&self.st.buf[at..at + ct])
    }

    fn finalize(self) -> postcard::Result<ReadState> {
        Ok(self.st)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde::Deserialize;

    use super::*;
    use crate::core::testing::Trickle;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        floats: Vec<f64>,
        some: Option<u64>,
        none: Option<u64>,
        big: u128,
        flag: bool,
        took: Duration,
    }

    fn sample() -> Sample {
        Sample {
            floats: vec![
                0.1,
                -0.0,
                f64::NAN,
                -f64::NAN,
                f64::from_bits(0x7ff0_0000_0000_0001), // a signalling NaN
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE / 3.0, // subnormal
            ],
            some: Some(7),
            none: None,
            big: u128::MAX - 5,
            flag: true,
            took: Duration::new(u64::MAX, 999_999_999),
        }
    }

    #[test]
    fn floats_nan_and_negative_zero_come_back_bit_for_bit() {
        let value = sample();
        let mut buf = vec![0xAA]; // appended after what is there
        encode(&value, &mut buf).expect("encodes");
        assert_eq!(buf[0], 0xAA);
        let back: Sample = decode(&buf[1..]).expect("decodes");
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<u64>>();
        assert_eq!(bits(&back.floats), bits(&value.floats));
        assert!(back.floats[1].is_sign_negative() && back.floats[1] == 0.0);
        assert_eq!(
            (back.some, back.none, back.big, back.flag, back.took),
            (value.some, value.none, value.big, value.flag, value.took)
        );
    }

    /// A writer that keeps what it is given and how, or fails from the
    /// `fail_at`-th write on.
    struct Recorder {
        bytes: Vec<u8>,
        writes: Vec<usize>,
        fail_at: usize,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.writes.len() == self.fail_at {
                return Err(std::io::Error::other("disk full"));
            }
            self.writes.push(buf.len());
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_run_is_written_as_it_is_encoded_in_chunks_the_same_bytes() {
        // 40,000 f64s: 320 KB and a length, five chunks and a bit.
        let value: Vec<f64> = (0..40_000).map(|i| f64::from(i) * 0.5).collect();
        let mut whole = Vec::new();
        encode(&value, &mut whole).expect("encodes");
        let mut rec = Recorder {
            bytes: Vec::new(),
            writes: Vec::new(),
            fail_at: usize::MAX,
        };
        encode_to(&value, &mut rec).expect("encodes");
        assert_eq!(rec.bytes, whole);
        // Handed over a chunk at a time, not at the end in one piece.
        assert!(rec.writes.len() >= 5, "{:?}", rec.writes);
        assert!(
            rec.writes.iter().all(|&n| n <= CHUNK + 9),
            "{:?}",
            rec.writes
        );
        // A failing writer stops the encoding with its own error.
        let mut failing = Recorder { fail_at: 2, ..rec };
        failing.bytes.clear();
        failing.writes.clear();
        let err = encode_to(&value, &mut failing).expect_err("the writer fails");
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(failing.writes.len(), 2);
    }

    #[test]
    fn an_f64_is_its_eight_little_endian_bytes() {
        // Independent of postcard: the bit pattern as `to_le_bytes` gives it.
        for x in [-0.0, f64::NAN, 1.5, -f64::MAX] {
            let mut buf = Vec::new();
            encode(&x, &mut buf).expect("encodes");
            assert_eq!(buf, x.to_bits().to_le_bytes());
        }
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Named {
        name: String,
        bytes: Vec<u8>,
        values: Vec<f64>,
        sample: Sample,
    }

    #[test]
    fn a_run_read_as_it_is_decoded_is_the_value_decode_gives() {
        // Strings and 50,000 f64s (400 KB, several chunks), given a byte
        // at a time, in odd pieces and whole.
        let value = Named {
            name: "tenant ü".repeat(20_000),
            bytes: (0..=255).collect(),
            values: (0..50_000).map(|i| f64::from(i) / 7.0).collect(),
            sample: sample(),
        };
        let mut buf = Vec::new();
        encode(&value, &mut buf).expect("encodes");
        let whole: Named = decode(&buf).expect("decodes");
        let bits = |v: &Named| {
            let mut f = v.values.clone();
            f.extend(&v.sample.floats);
            f.iter().map(|x| x.to_bits()).collect::<Vec<u64>>()
        };
        for step in [1, 7, READ_CHUNK - 1, usize::MAX] {
            let back: Named = decode_from(&mut Trickle::new(&buf, step)).expect("decodes");
            assert_eq!((&back.name, &back.bytes), (&whole.name, &whole.bytes));
            assert_eq!(bits(&back), bits(&whole), "step {step}");
        }
        // A failing reader stops the decoding with its own error.
        let mut failing = Trickle::new(&buf, 4096).failing_at(100_000);
        let err = decode_from::<Named>(&mut failing).expect_err("the reader fails");
        assert!(err.to_string().contains("the disk went away"), "{err}");
    }

    #[test]
    fn truncated_extended_or_oversized_input_read_as_decoded_is_an_error_not_a_panic() {
        // The cases of the slice test below, through a reader.
        let mut buf = Vec::new();
        encode(&sample(), &mut buf).expect("encodes");
        for cut in 0..buf.len() {
            let err = decode_from::<Sample>(&mut Trickle::new(&buf[..cut], 3))
                .expect_err("a cut encoding");
            assert!(err.to_string().contains("cannot be read"), "{err}");
        }
        let mut longer = buf.clone();
        longer.push(0);
        for step in [1, usize::MAX] {
            let err = decode_from::<Sample>(&mut Trickle::new(&longer, step))
                .expect_err("a longer encoding");
            assert!(err.to_string().contains("unread bytes"), "{err}");
        }
        // A list, a string and bytes that claim u64::MAX items in 10 bytes:
        // refused at the input's end, without trying to allocate them.
        let mut huge = Vec::new();
        encode(&u64::MAX, &mut huge).expect("encodes");
        for err in [
            decode_from::<Vec<f64>>(&mut Trickle::new(&huge, 64)).map(|_| ()),
            decode_from::<String>(&mut Trickle::new(&huge, 64)).map(|_| ()),
            decode_from::<serde_bytes_like::Buf>(&mut Trickle::new(&huge, 64)).map(|_| ()),
        ] {
            let err = err.expect_err("a huge length");
            assert!(err.to_string().contains("cannot be read"), "{err}");
        }
        let err = decode_from::<bool>(&mut Trickle::new(&[2], 1)).expect_err("a bad flag");
        assert!(err.to_string().contains("at byte 1"), "{err}");
    }

    /// A byte buffer read through `deserialize_byte_buf` (what
    /// `serde_bytes` does), without that crate.
    mod serde_bytes_like {
        use serde::de::{Deserialize, Deserializer, Visitor};

        pub struct Buf;

        impl<'de> Deserialize<'de> for Buf {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = Buf;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("bytes")
                    }
                    fn visit_bytes<E>(self, _: &[u8]) -> Result<Buf, E> {
                        Ok(Buf)
                    }
                }
                d.deserialize_byte_buf(V)
            }
        }
    }

    #[test]
    fn truncated_extended_or_oversized_input_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        encode(&sample(), &mut buf).expect("encodes");
        for cut in 0..buf.len() {
            let err = decode::<Sample>(&buf[..cut]).expect_err("a cut encoding");
            assert!(err.to_string().contains("cannot be read"), "{err}");
        }
        let mut longer = buf.clone();
        longer.push(0);
        let err = decode::<Sample>(&longer).expect_err("a longer encoding");
        assert!(err.to_string().contains("1 unread bytes"), "{err}");
        // A list that claims u64::MAX items in 10 bytes: refused, without
        // trying to allocate them.
        let mut huge = Vec::new();
        encode(&u64::MAX, &mut huge).expect("encodes");
        let err = decode::<Vec<f64>>(&huge).expect_err("a huge length");
        assert!(err.to_string().contains("cannot be read"), "{err}");
        // A flag that is neither 0 nor 1.
        let err = decode::<bool>(&[2]).expect_err("a bad flag");
        assert!(err.to_string().contains("at byte"), "{err}");
    }
}
