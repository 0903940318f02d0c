#!/usr/bin/env python3
"""Slow clients against the waf proxy on loopback, for benches/slow-clients.sh.

Opens COUNT connections of each shape at once, each stalling the proxy in one stage (docs/proxy-front-line.md,
"Time: slow clients"), and records when the proxy closed each, counted from the moment the stage's clock
started. Prints one line per shape: how many, how many were closed within BOUND + 1 s, the slowest close, and
what the proxy answered. Exits 1 if any connection outlived BOUND + 1 s. Standard library only.

usage: slow_clients.py HOST PORT COUNT BOUND_SECONDS
"""
import asyncio
import sys
import time

# How long a trickling client waits between header lines: well under any bound, so only the head's total time
# can close it.
TRICKLE_EVERY = 0.5


async def read_until_closed(reader, limit):
    """Reads until EOF; returns (what came, when it closed) or (what came, None) if still open at `limit`."""
    data = b""
    while True:
        remaining = limit - time.monotonic()
        if remaining <= 0:
            return data, None
        try:
            chunk = await asyncio.wait_for(reader.read(4096), remaining)
        except asyncio.TimeoutError:
            return data, None
        except ConnectionError:
            return data, time.monotonic()
        if not chunk:
            return data, time.monotonic()
        data += chunk


async def silent(host, port, bound):
    reader, writer = await asyncio.open_connection(host, port)
    started = time.monotonic()
    return started, reader, writer


async def request_line(host, port, bound):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(b"GET / HTTP/1.1\r\n")
    await writer.drain()
    return time.monotonic(), reader, writer


async def trickle(host, port, bound):
    reader, writer = await asyncio.open_connection(host, port)
    started = time.monotonic()
    writer.write(b"GET / HTTP/1.1\r\nHost: a\r\n")
    await writer.drain()

    async def lines():
        i = 0
        while True:
            await asyncio.sleep(TRICKLE_EVERY)
            writer.write(b"x-%d: %d\r\n" % (i, i))
            i += 1
            try:
                await writer.drain()
            except ConnectionError:
                return

    task = asyncio.ensure_future(lines())
    return started, reader, writer, task


async def idle_keepalive(host, port, bound):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    await reader.readexactly(length)
    return time.monotonic(), reader, writer


async def slow_body(host, port, bound):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nabc")
    await writer.drain()
    return time.monotonic(), reader, writer


SHAPES = {
    "silent": silent,
    "request-line": request_line,
    "trickle": trickle,
    "idle-keepalive": idle_keepalive,
    "slow-body": slow_body,
}


async def one(shape, host, port, bound, opening):
    # Opened a few at a time, as a crowd of clients would arrive, then all left waiting together.
    async with opening:
        opened = await SHAPES[shape](host, port, bound)
    started, reader, writer = opened[:3]
    data, closed = await read_until_closed(reader, started + bound + 5)
    if len(opened) > 3:
        opened[3].cancel()
    writer.close()
    status = data.split(b"\r\n", 1)[0].decode(errors="replace")
    if shape == "idle-keepalive":
        status = status or "(nothing more)"
    return (None if closed is None else closed - started), status or "(nothing)"


async def main():
    host, port, count, bound = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    opening = asyncio.Semaphore(200)

    async def limited(shape):
        return await asyncio.wait_for(one(shape, host, port, bound, opening), bound + 30)

    results = {}
    runs = {shape: [asyncio.ensure_future(limited(shape)) for _ in range(count)] for shape in SHAPES}
    for shape, tasks in runs.items():
        results[shape] = await asyncio.gather(*tasks, return_exceptions=True)
    late = 0
    for shape, outcomes in results.items():
        errors = [o for o in outcomes if isinstance(o, BaseException)]
        closes = [o[0] for o in outcomes if not isinstance(o, BaseException)]
        in_time = sum(1 for c in closes if c is not None and c <= bound + 1)
        open_ = sum(1 for c in closes if c is None)
        slowest = max((c for c in closes if c is not None), default=float("nan"))
        answers = sorted({o[1] for o in outcomes if not isinstance(o, BaseException)})
        late += len(outcomes) - in_time
        print(
            f"{shape:15} {len(outcomes):6} connections, {in_time:6} closed within {bound + 1:.0f} s, "
            f"{open_} still open, {len(errors)} client errors, slowest close {slowest:.2f} s, answers {answers}"
        )
        for e in errors[:3]:
            print(f"  error: {e!r}")
    sys.exit(1 if late else 0)


asyncio.run(main())
