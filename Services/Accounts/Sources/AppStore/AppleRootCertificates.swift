import Foundation

/// Apple's public root certificates that anchor App Store signed data.
public enum AppleRootCertificates {
    /// Apple Root CA - G3 (DER), the root of the App Store JWS chain
    /// (Apple Root CA - G3 → Apple Worldwide Developer Relations CA - G6 → the
    /// "Prod ECC Mac App Store and iTunes Store Receipt Signing" leaf).
    ///
    /// - Subject: CN=Apple Root CA - G3, OU=Apple Certification Authority, O=Apple Inc., C=US
    /// - Validity: 2014-04-30T18:19:06Z to 2039-04-30T18:19:06Z, ECDSA P-384
    /// - SHA-256 fingerprint (published by Apple at
    ///   https://www.apple.com/certificateauthority/ ; also quoted as the
    ///   constant APPLE_ROOT_CA_G3_FINGERPRINT in the npm package
    ///   app-store-server-api, AppleRootCertificate.ts):
    ///   63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79
    ///
    /// Source of the bytes: the public copy of
    /// https://www.apple.com/certificateauthority/AppleRootCA-G3.cer embedded in
    /// public repositories (e.g. a PEM constant in a Go App Store notification
    /// package), re-encoded to DER with `openssl x509 -outform DER`; the
    /// fingerprint above was recomputed from these bytes with
    /// `openssl x509 -noout -fingerprint -sha256` and matches Apple's.
    /// `AppStoreTests` recomputes it on every run.
    public static let appleRootCAG3: [UInt8] = Array(Data(base64Encoded: g3Base64)!)

    /// The published SHA-256 fingerprint of Apple Root CA - G3, hex, lower case.
    public static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// The default trust anchors: Apple Root CA - G3 only.
    public static var defaultRoots: [[UInt8]] { [appleRootCAG3] }

    private static let g3Base64 = """
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9v\
        dCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UE\
        CgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcNMTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2\
        WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmlj\
        YXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqG\
        SM49AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxE\
        tX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNC\
        MEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySrMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P\
        AQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3m\
        eoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkL\
        F1vLUagM6BgD56KyKA==
        """
}
