//! A real `redis-server` on a free loopback port, for the tests of the
//! Redis-backed stores (mcp-fusion's `guard` and `tasks` programs, and
//! fusion-cli's `serve`).
//! `scripts/test` installs redis-server.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `redis-server` on a free loopback port, killed on drop.
pub struct Redis {
    child: Child,
    port: u16,
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Redis {
    pub fn start_on(port: u16) -> Redis {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--enable-debug-command",
                "local",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server must be installed (scripts/test installs it)");
        let redis = Redis { child, port };
        let client = redis::Client::open(redis.url()).unwrap();
        for _ in 0..200 {
            if let Ok(mut conn) = client.get_connection()
                && redis::cmd("PING").query::<String>(&mut conn).is_ok()
            {
                return redis;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not answer on port {port}");
    }

    pub fn start() -> Redis {
        Redis::start_on(free_port())
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    pub fn stop(mut self) -> u16 {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.port
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
