//! Bytes both ways between a client and the host it tunnels to, each way in reads of
//! [`EGRESS_TUNNEL_BUFFER_BYTES`]. One side's end of data is passed on as a half-close and the
//! other way goes on; an error either way ends both; so does `idle` without a byte either way, or
//! the proxy stopping.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::limits::EGRESS_TUNNEL_BUFFER_BYTES;

use super::activity::Activity;

pub(super) async fn splice<C, U>(client: C, upstream: U, idle: Duration, stop: CancellationToken)
where
    C: AsyncRead + AsyncWrite + Unpin,
    U: AsyncRead + AsyncWrite + Unpin,
{
    let (mut client_read, mut client_write) = tokio::io::split(client);
    let (mut upstream_read, mut upstream_write) = tokio::io::split(upstream);
    let activity = Activity::new();
    let both_ways = async {
        tokio::try_join!(
            pump(&mut client_read, &mut upstream_write, &activity),
            pump(&mut upstream_read, &mut client_write, &activity),
        )
    };
    tokio::select! {
        _ = both_ways => {}
        () = activity.silent_for(idle) => {}
        () = stop.cancelled() => {}
    }
}

async fn pump<R, W>(from: &mut R, to: &mut W, activity: &Activity) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buffer = vec![0u8; EGRESS_TUNNEL_BUFFER_BYTES];
    loop {
        let read = from.read(&mut buffer).await?;
        if read == 0 {
            return to.shutdown().await;
        }
        activity.touch();
        to.write_all(&buffer[..read]).await?;
        activity.touch();
    }
}
