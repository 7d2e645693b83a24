//! The dispatcher: kernels by name, the UTF8CONFORM_KERNEL pin, and the
//! entry points running the pinned kernel. One test: the pin is read once
//! per process, so this file is its own process.

use utf8conform_codec::{self as codec, KernelError, KERNEL_VAR};

#[test]
fn kernels_by_name_and_the_pin() {
    let names: Vec<&str> = codec::kernels().map(|k| k.name).collect();
    assert_eq!(names.last(), Some(&"scalar"), "{names:?}");
    let all: Vec<&str> = codec::kernel_names().collect();
    for name in &all {
        match codec::kernel(name) {
            Ok(k) => {
                assert_eq!(k.name, *name);
                assert!(names.contains(name));
            }
            Err(e) => {
                assert!(!names.contains(name), "{name} runs here but is refused");
                assert_eq!(
                    e,
                    KernelError::Unavailable {
                        name: name.to_string()
                    }
                );
                assert!(e.to_string().contains(name), "{e}");
            }
        }
    }
    for name in &names {
        assert!(all.contains(name));
    }
    let unknown = codec::kernel("avx9").unwrap_err();
    assert_eq!(
        unknown,
        KernelError::Unknown {
            name: "avx9".into()
        }
    );
    let shown = unknown.to_string();
    assert!(
        shown.contains("avx9") && shown.contains("scalar"),
        "{shown}"
    );
    assert_ne!(
        shown,
        KernelError::Unavailable {
            name: "avx9".into()
        }
        .to_string()
    );

    // The pin: empty is no pin, an unknown name is an error, a known one
    // is honoured by every entry point.
    std::env::set_var(KERNEL_VAR, "");
    assert_eq!(
        codec::requested_kernel().map(|k| k.map(|k| k.name)),
        Ok(None)
    );
    std::env::set_var(KERNEL_VAR, "avx9");
    assert!(matches!(
        codec::requested_kernel(),
        Err(KernelError::Unknown { .. })
    ));
    std::env::set_var(KERNEL_VAR, "scalar");
    assert_eq!(
        codec::requested_kernel().map(|k| k.map(|k| k.name)),
        Ok(Some("scalar"))
    );
    assert_eq!(codec::active_kernel().name, "scalar");
    // Nine bytes and more go through the pinned kernel's validator.
    let long = b"nine byte\xE2\x82";
    #[allow(invalid_from_utf8)] // ill-formed on purpose
    let std = core::str::from_utf8(long).unwrap_err();
    let e = codec::validate(long).unwrap_err();
    assert_eq!((e.valid_up_to(), e.error_len()), (std.valid_up_to(), None));
    assert_eq!(codec::decode_lossy(long), String::from_utf8_lossy(long));
}
