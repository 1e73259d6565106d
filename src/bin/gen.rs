//! `linkgap-gen`: write synthetic Screaming Frog exports (the demo in `samples/`, benchmark
//! inputs). `linkgap-gen <DIR> [--pages N] [--dim D] [--topics T] [--body-links L] [--seed S] [--clean] [--page-text]`

use std::path::PathBuf;
use std::process::ExitCode;

use linkgap::synthetic::{Spec, write_exports};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut dir: Option<PathBuf> = None;
    let mut spec = Spec::default();
    while let Some(arg) = args.next() {
        let mut num = |name: &str| -> Option<usize> {
            let v = args.next().and_then(|v| v.parse().ok());
            if v.is_none() {
                eprintln!("linkgap-gen: {name} takes a whole number");
            }
            v
        };
        let ok = match arg.as_str() {
            "--pages" => num("--pages").map(|v| spec.pages = v),
            "--dim" => num("--dim").map(|v| spec.dim = v),
            "--topics" => num("--topics").map(|v| spec.topics = v),
            "--body-links" => num("--body-links").map(|v| spec.body_links = v),
            "--seed" => num("--seed").map(|v| spec.seed = v as u64),
            "--page-text" => {
                let _: () = spec.page_text = true;
                Some(())
            }
            "--clean" => {
                let _: () = spec.messy = false;
                Some(())
            }
            _ if !arg.starts_with('-') && dir.is_none() => {
                let _: () = dir = Some(PathBuf::from(&arg));
                Some(())
            }
            _ => None,
        };
        if ok.is_none() {
            eprintln!(
                "usage: linkgap-gen <DIR> [--pages N] [--dim D] [--topics T] [--body-links L] [--seed S] [--clean] [--page-text]"
            );
            return ExitCode::from(2);
        }
    }
    let Some(dir) = dir else {
        eprintln!(
            "usage: linkgap-gen <DIR> [--pages N] [--dim D] [--topics T] [--body-links L] [--seed S] [--clean] [--page-text]"
        );
        return ExitCode::from(2);
    };
    match write_exports(&dir, &spec) {
        Ok(files) => {
            eprintln!(
                "linkgap-gen: wrote {}, {}, {}",
                files.embeddings.display(),
                files.inlinks.display(),
                files.internal.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("linkgap-gen: {}: {e}", dir.display());
            ExitCode::from(2)
        }
    }
}
