//! A throwaway nginx: the given `http` context contents in a config of its own (pid, logs and temp paths in a
//! temporary directory), on the foreground, killed on drop.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Nginx {
    child: Child,
    pub dir: tempfile::TempDir,
}

impl Nginx {
    /// `None` (after reporting) when nginx is not installed.
    pub fn program() -> Option<PathBuf> {
        let found = super::external::find_program("nginx", &[])
            .or_else(|| Some(PathBuf::from("/usr/sbin/nginx")).filter(|p| p.is_file()));
        if found.is_none() {
            super::external::skip("nginx is not installed (apt-get install nginx)");
        }
        found
    }

    /// A directory nginx's workers may read (they drop to an unprivileged user when started as root).
    pub fn workdir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        dir
    }

    /// Starts `program` with `http` (the inside of the `http { }` block) in `dir`, waiting until `port` listens.
    pub fn start(program: &Path, dir: tempfile::TempDir, http: &str, port: u16) -> Self {
        let d = dir.path().display();
        let config = format!(
            "worker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
               fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               {http}\n}}\n"
        );
        let path = dir.path().join("nginx.conf");
        std::fs::write(&path, config).expect("write nginx.conf");
        let child = Command::new(program)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&path)
            .args(["-g", "daemon off;"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let mut nginx = Nginx { child, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = nginx.child.try_wait() {
                panic!("nginx exited ({status}):\n{}", nginx.error_log());
            }
            assert!(Instant::now() < deadline, "nginx did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    /// SIGTERM, not SIGKILL: the master then stops its workers, which a killed master would leave listening.
    fn drop(&mut self) {
        let terminated = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if !terminated {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
