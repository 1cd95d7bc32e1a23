//! Arrow IPC files and streams read into validated record batches, with the panics arrow-ipc 60
//! raises on corrupted input contained at this boundary, so a bad file is an
//! [`ArrowInteropError::Ipc`] or [`ArrowInteropError::IpcPanic`], never a panic of the caller.
//!
//! arrow-ipc validates what it reads by default (its readers' `with_skip_validation(false)`:
//! every array is built with `ArrayData`'s full validation, the flatbuffers are verified), and
//! these functions keep that default. What it does not check before slicing are the buffer
//! ranges and block lengths the file declares:
//!
//! - `Buffer::slice_with_length` in its `read_buffer` panics when a buffer of a record batch or
//!   dictionary message lies past the message body (files and streams). That panic is caught
//!   here (`std::panic::catch_unwind` around the reader's calls, the reader dropped after one)
//!   and reported with the part being read. The panic hook still runs: the message is printed to
//!   stderr as for any panic, then the call returns the error.
//! - The file reader's `read_block` unwraps a negative block length (a panic) and allocates a
//!   block's declared length zeroed before reading it (a corrupted length in a small file fills
//!   gigabytes). [`read_ipc_file`] checks every block of the footer against the file's length
//!   first, so neither happens.

use std::io::{Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_ipc::reader::{FileReader, StreamReader, read_footer_length};
use arrow_ipc::root_as_footer;
use arrow_schema::{ArrowError, SchemaRef};

use super::{ArrowInteropError, IpcPart};

/// The schema and every record batch of an Arrow IPC file or stream, validated by arrow-ipc.
#[derive(Clone, Debug)]
pub struct IpcBatches {
    /// The schema every batch has.
    pub schema: SchemaRef,
    /// The record batches, in file order.
    pub batches: Vec<RecordBatch>,
}

/// Reads an Arrow IPC file (the format with a footer, `.arrow`): its schema and every record
/// batch, validated.
///
/// # Errors
/// [`ArrowInteropError::Ipc`] for what arrow-ipc reports (an I/O error, a file that is not IPC,
/// flatbuffers that do not verify, arrays that do not validate);
/// [`ArrowInteropError::IpcPanic`] where arrow-ipc panicked on a corrupted file (a buffer or
/// block out of range).
pub fn read_ipc_file<R: Read + Seek>(mut reader: R) -> Result<IpcBatches, ArrowInteropError> {
    contain(IpcPart::Header, || check_blocks(&mut reader))?;
    let reader = contain(IpcPart::Header, || FileReader::try_new(reader, None))?;
    read_all(reader)
}

/// Checks that every dictionary and record batch block the footer of the file in `reader`
/// declares lies inside the file, then rewinds it. arrow-ipc's file reader allocates (and, at
/// its 64-byte alignment, zeroes) a block's declared length before reading it, so one
/// corrupted length in a few-kilobyte file would make it fill tens of gigabytes; a negative one
/// panics in its `read_block`. The footer itself is parsed and verified as arrow-ipc does.
fn check_blocks<R: Read + Seek>(reader: &mut R) -> Result<(), ArrowError> {
    let file_len = reader.seek(SeekFrom::End(0))?;
    let corrupt = |what: String| ArrowError::IpcError(format!("corrupted file footer: {what}"));
    let trailer_start = file_len
        .checked_sub(10)
        .ok_or_else(|| corrupt(format!("a file of {file_len} bytes has no footer")))?;
    let mut trailer = [0u8; 10];
    reader.seek(SeekFrom::Start(trailer_start))?;
    reader.read_exact(&mut trailer)?;
    let footer_len = read_footer_length(trailer)? as u64;
    let footer_start = trailer_start.checked_sub(footer_len).ok_or_else(|| {
        corrupt(format!(
            "a footer of {footer_len} bytes in a file of {file_len} bytes"
        ))
    })?;
    let mut footer = vec![0u8; footer_len as usize];
    reader.seek(SeekFrom::Start(footer_start))?;
    reader.read_exact(&mut footer)?;
    let footer =
        root_as_footer(&footer).map_err(|e| corrupt(format!("the footer does not verify: {e}")))?;
    let blocks = footer
        .dictionaries()
        .into_iter()
        .flatten()
        .chain(footer.recordBatches().into_iter().flatten());
    for block in blocks {
        let (offset, meta, body) = (block.offset(), block.metaDataLength(), block.bodyLength());
        let end = u64::try_from(offset)
            .ok()
            .zip(u64::try_from(meta).ok())
            .zip(u64::try_from(body).ok())
            .and_then(|((o, m), b)| o.checked_add(m)?.checked_add(b));
        if end.is_none_or(|end| end > footer_start) {
            return Err(corrupt(format!(
                "a block at byte {offset} of {meta} metadata and {body} body bytes does not lie inside the {footer_start} bytes before the footer"
            )));
        }
    }
    reader.seek(SeekFrom::Start(0))?;
    Ok(())
}

/// Reads an Arrow IPC stream (the format without a footer): its schema and every record batch,
/// validated. arrow-ipc bounds what it reserves for a message body by the bytes that arrive, so
/// a corrupted length costs a bounded allocation and a short read.
///
/// # Errors
/// As [`read_ipc_file`].
pub fn read_ipc_stream<R: Read>(reader: R) -> Result<IpcBatches, ArrowInteropError> {
    let reader = contain(IpcPart::Header, || StreamReader::try_new(reader, None))?;
    read_all(reader)
}

/// Every batch of `reader`, each read inside [`contain`]; stops at the first failure.
fn read_all<I>(mut reader: I) -> Result<IpcBatches, ArrowInteropError>
where
    I: RecordBatchReader,
{
    let schema = reader.schema();
    let mut batches = Vec::new();
    loop {
        let part = IpcPart::Batch(batches.len());
        match contain(part, || reader.next().transpose())? {
            Some(batch) => batches.push(batch),
            None => return Ok(IpcBatches { schema, batches }),
        }
    }
}

/// Runs one arrow-ipc call reading `part`, its error or its panic returned as an
/// [`ArrowInteropError`]. The reader the call borrows is not used again after a panic: the
/// callers return the error, dropping it.
fn contain<T>(
    part: IpcPart,
    read: impl FnOnce() -> Result<T, ArrowError>,
) -> Result<T, ArrowInteropError> {
    match catch_unwind(AssertUnwindSafe(read)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(ArrowInteropError::Ipc {
            part,
            message: error.to_string(),
        }),
        Err(payload) => Err(ArrowInteropError::IpcPanic {
            part,
            message: panic_message(payload.as_ref()),
        }),
    }
}

/// The message of a caught panic (`&str` or `String` payloads; others say so).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}
