//! Arrow Flight (feature `flight`, arrow-rs `arrow-flight` 60): a `do_get` stream from a Flight
//! server (DataFusion / Ballista, Dremio, InfluxDB 3, a `pyarrow.flight` service) into a GPU
//! table that grows batch by batch.

use std::pin::Pin;

use arrow_flight::error::FlightError;
use arrow_flight::{FlightClient, Ticket};
use futures_core::Stream;

use super::stream::{CancelToken, IngestError, IngestOptions, Ingested, Progress, TableBuilder};
use crate::device::Gpu;

fn flight_error(source: FlightError) -> IngestError {
    IngestError::Flight { source }
}

/// Connects to the Flight server at `url` (`grpc://host:port` or `http://host:port`), asks for
/// `ticket` with `do_get` and streams the batches into a GPU table, as
/// [`ingest_reader`](super::stream::ingest_reader) does: each batch converted by
/// `options.conversions` and uploaded as it arrives (gRPC's flow control bounds what is in
/// flight), `progress` after each, `cancel` checked between batches, the partial table destroyed
/// on any error. Runs its own single-threaded Tokio runtime; call it from a plain thread (or
/// `spawn_blocking`), not from inside another runtime.
///
/// # Errors
/// [`IngestError::Flight`] when the connection, the `do_get` call or the stream fails; then as
/// [`TableBuilder`].
pub fn ingest_flight(
    gpu: &Gpu,
    url: &str,
    ticket: impl Into<bytes::Bytes>,
    options: &IngestOptions,
    mut progress: impl FnMut(&Progress),
    cancel: &CancelToken,
) -> Result<Ingested, IngestError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| IngestError::Flight {
            source: FlightError::ExternalError(Box::new(e)),
        })?;
    let url = url.replacen("grpc://", "http://", 1);
    let ticket = Ticket::new(ticket);
    runtime.block_on(async {
        let endpoint = tonic::transport::Endpoint::from_shared(url)
            .map_err(|e| flight_error(FlightError::ExternalError(Box::new(e))))?;
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| flight_error(FlightError::ExternalError(Box::new(e))))?;
        let mut client = FlightClient::new(channel);
        let mut stream = client.do_get(ticket).await.map_err(flight_error)?;
        // The schema arrives before (or with) the first batch.
        let first = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx))
            .await
            .transpose()
            .map_err(flight_error)?;
        let schema = match (&first, stream.schema()) {
            (_, Some(schema)) => schema.clone(),
            (Some(batch), None) => batch.schema(),
            (None, None) => std::sync::Arc::new(arrow_schema::Schema::empty()),
        };
        let mut builder = TableBuilder::new(gpu, schema, options)?;
        let mut pending = first;
        while let Some(batch) = pending {
            if cancel.is_cancelled() {
                let rows = builder.progress().rows;
                builder.abort();
                return Err(IngestError::Cancelled { rows });
            }
            builder.push(&batch)?;
            progress(&builder.progress());
            pending = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx))
                .await
                .transpose()
                .map_err(flight_error)?;
        }
        builder.finish()
    })
}
