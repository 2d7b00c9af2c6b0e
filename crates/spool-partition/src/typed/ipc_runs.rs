//! A group's rows in a spill log as Arrow IPC messages: each run its
//! rows' record batch message, after the dictionaries it uses, and the
//! group's first run also the schema — so a group's runs joined are an
//! IPC stream, read back by Arrow's own [`StreamDecoder`].
//!
//! IPC is Arrow's own format for moving batches out of memory: writing
//! it copies the batch's buffers as they are and reading it back gives
//! the same arrays, every type included (nested, dictionary, decimal,
//! timestamps with their zone), with no encoding either way.
//!
//! Each run carries its own dictionaries (a later run's replace the
//! earlier's, as the stream format allows), garbage-collected to the
//! values its rows use: a group's slice of a sorted batch shares the whole
//! batch's dictionary, which written once per group would be written as
//! many times as there are groups.

use std::io;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_ipc::writer::{
    write_message, DictionaryTracker, IpcDataGenerator, IpcWriteContext, IpcWriteOptions,
};
use arrow_schema::{ArrowError, DataType};
use arrow_select::dictionary::garbage_collect_any_dictionary;

/// The encoding buffer is kept between runs up to this capacity (a larger
/// run's is given back after it).
const KEEP: usize = 4 << 20;

/// Encodes a group's runs; see the module docs.
#[derive(Default)]
pub(crate) struct IpcRuns {
    buffer: Vec<u8>,
    generator: IpcDataGenerator,
    options: IpcWriteOptions,
    context: IpcWriteContext,
}

impl IpcRuns {
    /// `batch` as one run of its group: the schema first if `first`, the
    /// dictionaries its rows use, its record batch.
    ///
    /// # Errors
    ///
    /// A type Arrow IPC cannot write.
    pub fn encode(&mut self, batch: &RecordBatch, first: bool) -> io::Result<&[u8]> {
        if self.buffer.capacity() > KEEP {
            self.buffer = Vec::new();
        }
        self.buffer.clear();
        let batch = used_dictionary_values(batch).map_err(io::Error::other)?;
        let mut tracker = DictionaryTracker::new(false);
        // The schema assigns the dictionaries' ids, written or not.
        let schema = (self.generator).schema_to_bytes_with_dictionary_tracker(
            batch.schema_ref(),
            &mut tracker,
            &self.options,
        );
        let (dictionaries, message) = (self.generator)
            .encode(&batch, &mut tracker, &self.options, &mut self.context)
            .map_err(io::Error::other)?;
        let messages = (first.then_some(schema).into_iter())
            .chain(dictionaries)
            .chain([message]);
        for message in messages {
            write_message(&mut self.buffer, message, &self.options).map_err(io::Error::other)?;
        }
        Ok(&self.buffer)
    }
}

/// `batch` with each dictionary column's values cut to those its rows
/// use.
fn used_dictionary_values(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let is_dictionary = |c: &ArrayRef| matches!(c.data_type(), DataType::Dictionary(..));
    if !batch.columns().iter().any(is_dictionary) {
        return Ok(batch.clone());
    }
    let columns = (batch.columns().iter())
        .map(|c| match is_dictionary(c) {
            true => garbage_collect_any_dictionary(c.as_any_dictionary()),
            false => Ok(c.clone()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(batch.schema(), columns)
}

/// Decodes a group's runs, joined, given in pieces of any size.
#[derive(Default)]
pub(crate) struct RunsDecoder {
    decoder: StreamDecoder,
}

impl RunsDecoder {
    /// The batches whose last byte is in `piece`.
    ///
    /// # Errors
    ///
    /// Bytes that are not the runs [`IpcRuns`] wrote (the log was changed).
    pub fn decode(&mut self, piece: &[u8]) -> io::Result<Vec<RecordBatch>> {
        let mut buffer = Buffer::from(piece);
        let mut batches = Vec::new();
        while !buffer.is_empty() {
            if let Some(batch) = self.decoder.decode(&mut buffer).map_err(corrupt)? {
                batches.push(batch);
            }
        }
        Ok(batches)
    }

    /// Checks that the runs ended where a message ends.
    ///
    /// # Errors
    ///
    /// The runs ended inside a message.
    pub fn finish(&mut self) -> io::Result<()> {
        self.decoder.finish().map_err(corrupt)
    }
}

fn corrupt(e: ArrowError) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("spill log unreadable: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{ListBuilder, StringDictionaryBuilder, StructBuilder};
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, DictionaryArray, Int64Array, TimestampNanosecondArray};
    use arrow_schema::{Field, Fields};

    use super::*;

    fn runs(batches: &[RecordBatch]) -> Vec<u8> {
        let mut encoder = IpcRuns::default();
        let mut stream = Vec::new();
        for (i, b) in batches.iter().enumerate() {
            stream.extend_from_slice(encoder.encode(b, i == 0).unwrap());
        }
        stream
    }

    /// Runs joined come back as the batches, in any piece sizes; a
    /// dictionary column keeps its type and its rows' values only.
    #[test]
    fn runs_come_back_whole_in_any_pieces() {
        let mut words = StringDictionaryBuilder::<Int32Type>::new();
        for i in 0..1000 {
            words.append_value(format!("word {}", i % 300));
        }
        let words: DictionaryArray<Int32Type> = words.finish();
        let mut list = ListBuilder::new(StructBuilder::from_fields(
            Fields::from(vec![Field::new("x", DataType::Int64, true)]),
            0,
        ));
        for i in 0..1000i64 {
            let item = list.values();
            for j in 0..i % 3 {
                item.field_builder::<arrow_array::builder::Int64Builder>(0)
                    .unwrap()
                    .append_option((j != 1).then_some(i + j));
                item.append(true);
            }
            list.append(i % 7 != 0);
        }
        let zoned = TimestampNanosecondArray::from_iter_values(0..1000).with_timezone("+02:00");
        let batch = RecordBatch::try_from_iter([
            ("n", Arc::new(Int64Array::from_iter(0..1000)) as ArrayRef),
            ("word", Arc::new(words)),
            ("items", Arc::new(list.finish())),
            ("at", Arc::new(zoned)),
        ])
        .unwrap();
        let slices = [batch.slice(0, 10), batch.slice(10, 1), batch.slice(11, 989)];
        let stream = runs(&slices);
        for piece in [1, 7, 64, 4096, stream.len()] {
            let mut decoder = RunsDecoder::default();
            let mut back = Vec::new();
            for part in stream.chunks(piece) {
                back.extend(decoder.decode(part).unwrap());
            }
            decoder.finish().unwrap();
            assert_eq!(back.len(), 3, "pieces of {piece}");
            for (got, sent) in back.iter().zip(&slices) {
                assert_eq!(got.schema(), sent.schema());
                for (g, s) in got.columns().iter().zip(sent.columns()) {
                    // A dictionary's values are cut to its rows': compare
                    // what each row holds.
                    let plain = match s.data_type() {
                        DataType::Dictionary(_, values) => values.as_ref().clone(),
                        other => other.clone(),
                    };
                    let g = arrow_cast::cast(g, &plain).unwrap();
                    let s = arrow_cast::cast(s, &plain).unwrap();
                    assert_eq!(&*g, &*s, "pieces of {piece}");
                }
            }
            let words = back[1].column(1).as_any_dictionary();
            assert_eq!(words.values().len(), 1, "the one row's value only");
        }
    }

    #[test]
    fn runs_cut_inside_a_message_are_an_error() {
        let batch = RecordBatch::try_from_iter([(
            "n",
            Arc::new(Int64Array::from_iter(0..100)) as ArrayRef,
        )])
        .unwrap();
        let stream = runs(&[batch]);
        let mut decoder = RunsDecoder::default();
        assert!(decoder
            .decode(&stream[..stream.len() - 3])
            .unwrap()
            .is_empty());
        let e = decoder.finish().unwrap_err();
        assert!(e.to_string().contains("spill log"), "{e}");
    }
}
