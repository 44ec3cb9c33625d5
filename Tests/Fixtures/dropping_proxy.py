"""A real HTTP proxy in front of `pantry api` that loses answers: the first N requests whose
request line starts with a given prefix are forwarded and answered by the API, then the client's
connection is reset instead of getting the answer (what a dropped mobile connection does to a
command that was applied). Prints `port P`, then `dropped METHOD PATH` each time it drops one.

    python dropping_proxy.py API_PORT PREFIX N        e.g.  8080 "POST /v1/me/cart" 1
"""
import asyncio
import socket
import struct
import sys

API_PORT, PREFIX, TO_DROP = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3])
dropped = 0


async def read_request(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return head, await reader.readexactly(length) if length else b""


def with_connection_close(head):
    lines = [line for line in head.split(b"\r\n") if line and not line.lower().startswith(b"connection:")]
    return b"\r\n".join(lines + [b"Connection: close", b"", b""])


async def serve(client_reader, client_writer):
    global dropped
    try:
        head, body = await read_request(client_reader)
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", API_PORT)
        upstream_writer.write(with_connection_close(head) + body)
        await upstream_writer.drain()
        answer = await upstream_reader.read()  # to the end: the API closes after answering
        upstream_writer.close()
        if head.startswith(PREFIX) and dropped < TO_DROP:
            dropped += 1
            print("dropped", head.split(b"\r\n")[0].decode(), flush=True)
            # Reset, not a clean close: the client sees the connection lost mid-answer.
            client_writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:
            # One request a connection: the client must not send another on it.
            head, _, rest = answer.partition(b"\r\n\r\n")
            client_writer.write(with_connection_close(head) + rest)
            await client_writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        client_writer.close()


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print("port", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
