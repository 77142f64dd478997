//! The listening socket, bound without an async runtime.
//!
//! `gatecheck serve` binds its port before it builds the tokio runtime: clients that poll the
//! port connect as soon as it exists, and their first request waits in the kernel until the
//! server is up, instead of failing and polling again (BENCHMARKS.md, "Tenth session").

use std::io;
use std::net::SocketAddr;

/// The accept queue's length: tokio's own `TcpListener::bind` asks for the same, so a burst of
/// connections waits in the kernel rather than being refused.
const BACKLOG: i32 = 1024;

/// A listening TCP socket on `addr`, as tokio's `TcpListener::bind` makes one (address reuse,
/// a backlog of 1024, close-on-exec), in non-blocking mode and ready for
/// [`crate::MockServerBuilder::listener`]. No runtime is needed.
///
/// ```
/// let listener = gatecheck_mock::listen("127.0.0.1:0".parse().unwrap()).unwrap();
/// assert_ne!(listener.local_addr().unwrap().port(), 0);
/// ```
pub fn listen(addr: SocketAddr) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}
