"""A pyarrow.flight server for gpudata's Flight test: serves one table, the ticket `flights`.

    python flight_server.py OUT.arrow

builds the table with pyarrow (timestamps, int64 with nulls, large strings, booleans, float64),
writes it to OUT.arrow as an Arrow IPC file (the test's oracle), listens on a free local port,
prints `port N` on stdout and serves until stdin closes.
"""

import sys
import threading

import pyarrow as pa
import pyarrow.flight as flight


def table():
    rows = 50_000
    minute = 60_000_000
    start = 978_307_200_000_000
    return pa.table(
        {
            "date": pa.array([start + (i * 7 % 525_600) * minute for i in range(rows)], pa.timestamp("us")),
            "delay": pa.array([None if i % 11 == 0 else (i * 37) % 400 - 60 for i in range(rows)], pa.int64()),
            "origin": pa.array([["SEA", "LAX", "ORD", "JFK", "ATL"][i % 5] for i in range(rows)], pa.large_string()),
            "late": pa.array([i % 3 == 0 for i in range(rows)], pa.bool_()),
            "ratio": pa.array([i / 8.0 for i in range(rows)], pa.float64()),
        }
    ).combine_chunks()


class Server(flight.FlightServerBase):
    def __init__(self, data):
        super().__init__("grpc://127.0.0.1:0")
        self.data = data

    def do_get(self, context, ticket):
        if ticket.ticket != b"flights":
            raise flight.FlightServerError(f"unknown ticket {ticket.ticket!r}")
        # Several record batches, as query engines send them.
        return flight.RecordBatchStream(pa.Table.from_batches(self.data.to_batches(max_chunksize=8_192)))


def main():
    data = table()
    with pa.OSFile(sys.argv[1], "wb") as sink:
        with pa.ipc.new_file(sink, data.schema) as writer:
            writer.write_table(data, max_chunksize=8_192)
    server = Server(data)
    print(f"port {server.port}", flush=True)
    threading.Thread(target=server.serve, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
