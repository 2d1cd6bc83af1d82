import Foundation
import MailwakeAppStore
import MailwakeCrypto
import Testing
import TestSupport

@Suite(.offPool) struct AppleRootTests {  // chains are made with openssl, synchronously
    @Test func bundledAppleRootHasThePublishedFingerprint() {
        let der = AppleRootCertificates.appleRootCAG3
        #expect(der.count == 583)
        #expect(SHA256.hash(der).hex == AppleRootCertificates.appleRootCAG3SHA256)
        // Apple's published value, https://www.apple.com/certificateauthority/
        #expect(AppleRootCertificates.appleRootCAG3SHA256
            == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79"
            .replacingOccurrences(of: ":", with: "").lowercased())
    }

    @Test func bundledAppleRootParsesAsTheDefaultTrustAnchor() throws {
        let v = try AppStoreJWSVerifier(configuration: .init(bundleId: "com.goodheartapp", environment: .sandbox))
        #expect(v.configuration.trustedRoots == [AppleRootCertificates.appleRootCAG3])
    }

    /// A real StoreKit 2 sandbox transaction signed by Apple (Apple Root CA - G3 →
    /// Apple WWDR CA - G6 → "Prod ECC Mac App Store and iTunes Store Receipt
    /// Signing", leaf valid 2023-09-12 to 2025-10-11), published as a test
    /// fixture in the spec of an open-source Ruby App Store Server API gem.
    /// It proves the real Apple chain passes the strict X.509 checks, with the
    /// validity taken at signedDate (2025-02-10) although the leaf has expired.
    static let realAppleSandboxTransaction = """
        eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWZUbGZkMGZOdkZXdnpDMVlJQU5zWGpBS0JnZ3Foa2pP\
        UFFRREF6QjFNVVF3UWdZRFZRUURERHRCY0hCc1pTQlhiM0pzWkhkcFpHVWdSR1YyWld4dmNHVnlJRkpsYkdGMGFXOXVjeUJEWlhK\
        MGFXWnBZMkYwYVc5dUlFRjFkR2h2Y21sMGVURUxNQWtHQTFVRUN3d0NSell4RXpBUkJnTlZCQW9NQ2tGd2NHeGxJRWx1WXk0eEN6\
        QUpCZ05WQkFZVEFsVlRNQjRYRFRJek1Ea3hNakU1TlRFMU0xb1hEVEkxTVRBeE1URTVOVEUxTWxvd2daSXhRREErQmdOVkJBTU1O\
        MUJ5YjJRZ1JVTkRJRTFoWXlCQmNIQWdVM1J2Y21VZ1lXNWtJR2xVZFc1bGN5QlRkRzl5WlNCU1pXTmxhWEIwSUZOcFoyNXBibWN4\
        TERBcUJnTlZCQXNNSTBGd2NHeGxJRmR2Y214a2QybGtaU0JFWlhabGJHOXdaWElnVW1Wc1lYUnBiMjV6TVJNd0VRWURWUVFLREFw\
        QmNIQnNaU0JKYm1NdU1Rc3dDUVlEVlFRR0V3SlZVekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCRUZFWWUvSnFU\
        cXlRdi9kdFhrYXVESENTY1YxMjlGWVJWLzB4aUIyNG5DUWt6UWYzYXNISk9OUjVyMFJBMGFMdko0MzJoeTFTWk1vdXZ5ZnBtMjZq\
        WFNqZ2dJSU1JSUNCREFNQmdOVkhSTUJBZjhFQWpBQU1COEdBMVVkSXdRWU1CYUFGRDh2bENOUjAxREptaWc5N2JCODVjK2xrR0ta\
        TUhBR0NDc0dBUVVGQndFQkJHUXdZakF0QmdnckJnRUZCUWN3QW9ZaGFIUjBjRG92TDJObGNuUnpMbUZ3Y0d4bExtTnZiUzkzZDJS\
        eVp6WXVaR1Z5TURFR0NDc0dBUVVGQnpBQmhpVm9kSFJ3T2k4dmIyTnpjQzVoY0hCc1pTNWpiMjB2YjJOemNEQXpMWGQzWkhKbk5q\
        QXlNSUlCSGdZRFZSMGdCSUlCRlRDQ0FSRXdnZ0VOQmdvcWhraUc5Mk5rQlFZQk1JSCtNSUhEQmdnckJnRUZCUWNDQWpDQnRneUJz\
        MUpsYkdsaGJtTmxJRzl1SUhSb2FYTWdZMlZ5ZEdsbWFXTmhkR1VnWW5rZ1lXNTVJSEJoY25SNUlHRnpjM1Z0WlhNZ1lXTmpaWEIw\
        WVc1alpTQnZaaUIwYUdVZ2RHaGxiaUJoY0hCc2FXTmhZbXhsSUhOMFlXNWtZWEprSUhSbGNtMXpJR0Z1WkNCamIyNWthWFJwYjI1\
        eklHOW1JSFZ6WlN3Z1kyVnlkR2xtYVdOaGRHVWdjRzlzYVdONUlHRnVaQ0JqWlhKMGFXWnBZMkYwYVc5dUlIQnlZV04wYVdObElI\
        TjBZWFJsYldWdWRITXVNRFlHQ0NzR0FRVUZCd0lCRmlwb2RIUndPaTh2ZDNkM0xtRndjR3hsTG1OdmJTOWpaWEowYVdacFkyRjBa\
        V0YxZEdodmNtbDBlUzh3SFFZRFZSME9CQllFRkFNczhQanM2VmhXR1FsekUyWk9FK0dYNE9vL01BNEdBMVVkRHdFQi93UUVBd0lI\
        Z0RBUUJnb3Foa2lHOTJOa0Jnc0JCQUlGQURBS0JnZ3Foa2pPUFFRREF3Tm9BREJsQWpFQTh5Uk5kc2twNTA2REZkUExnaExMSndB\
        djVKOGhCR0xhSThERXhkY1BYK2FCS2pqTzhlVW85S3BmcGNOWVVZNVlBakFQWG1NWEVaTCtRMDJhZHJtbXNoTnh6M05uS20rb3VR\
        d1U3dkJUbjBMdmxNN3ZwczJZc2xWVGFtUllMNGFTczVrPSIsIk1JSURGakNDQXB5Z0F3SUJBZ0lVSXNHaFJ3cDBjMm52VTRZU3lj\
        YWZQVGp6Yk5jd0NnWUlLb1pJemowRUF3TXdaekViTUJrR0ExVUVBd3dTUVhCd2JHVWdVbTl2ZENCRFFTQXRJRWN6TVNZd0pBWURW\
        UVFMREIxQmNIQnNaU0JEWlhKMGFXWnBZMkYwYVc5dUlFRjFkR2h2Y21sMGVURVRNQkVHQTFVRUNnd0tRWEJ3YkdVZ1NXNWpMakVM\
        TUFrR0ExVUVCaE1DVlZNd0hoY05NakV3TXpFM01qQXpOekV3V2hjTk16WXdNekU1TURBd01EQXdXakIxTVVRd1FnWURWUVFERER0\
        QmNIQnNaU0JYYjNKc1pIZHBaR1VnUkdWMlpXeHZjR1Z5SUZKbGJHRjBhVzl1Y3lCRFpYSjBhV1pwWTJGMGFXOXVJRUYxZEdodmNt\
        bDBlVEVMTUFrR0ExVUVDd3dDUnpZeEV6QVJCZ05WQkFvTUNrRndjR3hsSUVsdVl5NHhDekFKQmdOVkJBWVRBbFZUTUhZd0VBWUhL\
        b1pJemowQ0FRWUZLNEVFQUNJRFlnQUVic1FLQzk0UHJsV21aWG5YZ3R4emRWSkw4VDBTR1luZ0RSR3BuZ24zTjZQVDhKTUViN0ZE\
        aTRiQm1QaENuWjMvc3E2UEYvY0djS1hXc0w1dk90ZVJoeUo0NXgzQVNQN2NPQithYW85MGZjcHhTdi9FWkZibmlBYk5nWkdoSWhw\
        SW80SDZNSUgzTUJJR0ExVWRFd0VCL3dRSU1BWUJBZjhDQVFBd0h3WURWUjBqQkJnd0ZvQVV1N0Rlb1ZnemlKcWtpcG5ldnIzcnI5\
        ckxKS3N3UmdZSUt3WUJCUVVIQVFFRU9qQTRNRFlHQ0NzR0FRVUZCekFCaGlwb2RIUndPaTh2YjJOemNDNWhjSEJzWlM1amIyMHZi\
        Mk56Y0RBekxXRndjR3hsY205dmRHTmhaek13TndZRFZSMGZCREF3TGpBc29DcWdLSVltYUhSMGNEb3ZMMk55YkM1aGNIQnNaUzVq\
        YjIwdllYQndiR1Z5YjI5MFkyRm5NeTVqY213d0hRWURWUjBPQkJZRUZEOHZsQ05SMDFESm1pZzk3YkI4NWMrbGtHS1pNQTRHQTFV\
        ZER3RUIvd1FFQXdJQkJqQVFCZ29xaGtpRzkyTmtCZ0lCQkFJRkFEQUtCZ2dxaGtqT1BRUURBd05vQURCbEFqQkFYaFNxNUl5S29n\
        TUNQdHc0OTBCYUI2NzdDYUVHSlh1ZlFCL0VxWkdkNkNTamlDdE9udU1UYlhWWG14eGN4ZmtDTVFEVFNQeGFyWlh2TnJreFUzVGtV\
        TUkzM3l6dkZWVlJUNHd4V0pDOTk0T3NkY1o0K1JHTnNZRHlSNWdtZHIwbkRHZz0iLCJNSUlDUXpDQ0FjbWdBd0lCQWdJSUxjWDhp\
        TkxGUzVVd0NnWUlLb1pJemowRUF3TXdaekViTUJrR0ExVUVBd3dTUVhCd2JHVWdVbTl2ZENCRFFTQXRJRWN6TVNZd0pBWURWUVFM\
        REIxQmNIQnNaU0JEWlhKMGFXWnBZMkYwYVc5dUlFRjFkR2h2Y21sMGVURVRNQkVHQTFVRUNnd0tRWEJ3YkdVZ1NXNWpMakVMTUFr\
        R0ExVUVCaE1DVlZNd0hoY05NVFF3TkRNd01UZ3hPVEEyV2hjTk16a3dORE13TVRneE9UQTJXakJuTVJzd0dRWURWUVFEREJKQmNI\
        QnNaU0JTYjI5MElFTkJJQzBnUnpNeEpqQWtCZ05WQkFzTUhVRndjR3hsSUVObGNuUnBabWxqWVhScGIyNGdRWFYwYUc5eWFYUjVN\
        Uk13RVFZRFZRUUtEQXBCY0hCc1pTQkpibU11TVFzd0NRWURWUVFHRXdKVlV6QjJNQkFHQnlxR1NNNDlBZ0VHQlN1QkJBQWlBMklB\
        QkpqcEx6MUFjcVR0a3lKeWdSTWMzUkNWOGNXalRuSGNGQmJaRHVXbUJTcDNaSHRmVGpqVHV4eEV0WC8xSDdZeVlsM0o2WVJiVHpC\
        UEVWb0EvVmhZREtYMUR5eE5CMGNUZGRxWGw1ZHZNVnp0SzUxN0lEdll1VlRaWHBta09sRUtNYU5DTUVBd0hRWURWUjBPQkJZRUZM\
        dXczcUZZTTRpYXBJcVozcjY5NjYvYXl5U3JNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdFR01Bb0dD\
        Q3FHU000OUJBTURBMmdBTUdVQ01RQ0Q2Y0hFRmw0YVhUUVkyZTN2OUd3T0FFWkx1Tit5UmhIRkQvM21lb3locG12T3dnUFVuUFdU\
        eG5TNGF0K3FJeFVDTUcxbWloREsxQTNVVDgyTlF6NjBpbU9sTTI3amJkb1h0MlFmeUZNbStZaGlkRGtMRjF2TFVhZ002QmdENTZL\
        eUtBPT0iXX0.eyJ0cmFuc2FjdGlvbklkIjoiMjAwMDAwMDg0NzA2MTk4MSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjIwMDAw\
        MDA4NDcwNjE5ODEiLCJidW5kbGVJZCI6ImNvbS5nb29kaGVhcnRhcHAiLCJwcm9kdWN0SWQiOiJnaF9zdXBlcl9nb29kX3RpY2tl\
        dF8xIiwicHVyY2hhc2VEYXRlIjoxNzM4NjQ1NTYwMDAwLCJvcmlnaW5hbFB1cmNoYXNlRGF0ZSI6MTczODY0NTU2MDAwMCwicXVh\
        bnRpdHkiOjEsInR5cGUiOiJDb25zdW1hYmxlIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6\
        MTczOTE2MTc3MjU2MSwiZW52aXJvbm1lbnQiOiJTYW5kYm94IiwidHJhbnNhY3Rpb25SZWFzb24iOiJQVVJDSEFTRSIsInN0b3Jl\
        ZnJvbnQiOiJKUE4iLCJzdG9yZWZyb250SWQiOiIxNDM0NjIiLCJwcmljZSI6MjMwMDAwLCJjdXJyZW5jeSI6IkpQWSJ9.vwbS3gH\
        yL56A0b8KAeZjwIzpDfUuL8BvMWxbDSJyQcAxeLM6W6rcGVbgawSeGE0qbd6b9aXQHzy0mkBKnLeAqw
        """

    @Test func realAppleSignedTransactionVerifiesAgainstTheBundledRoot() throws {
        let v = try AppStoreJWSVerifier(configuration: .init(bundleId: "com.goodheartapp", environment: .sandbox))
        let t = try v.verifyTransaction(Self.realAppleSandboxTransaction)
        #expect(t.transactionId == "2000000847061981")
        #expect(t.type == .consumable)
        #expect(t.signedDate.millisecondsSince1970 == 1_739_161_772_561)
        #expect(t.price == 230_000 && t.currency == "JPY")
    }

    @Test func realAppleSignedTransactionIsRefusedByAnotherRoot() throws {
        let v = try AppStoreJWSVerifier(configuration: .init(
            trustedRoots: [Chains.good().chain.rootDER], bundleId: "com.goodheartapp", environment: .sandbox))
        expectRefusal(.chainUntrusted, jws: Self.realAppleSandboxTransaction) { () throws(AppStoreVerificationError) in
            try v.verifyTransaction(Self.realAppleSandboxTransaction)
        }
    }

    @Test func realAppleSignedTransactionIsRefusedForAnotherBundleAndEnvironment() throws {
        let jws = Self.realAppleSandboxTransaction
        let wrongBundle = try AppStoreJWSVerifier(configuration: .init(bundleId: testBundleId, environment: .sandbox))
        expectRefusal(.bundleMismatch, jws: jws) { () throws(AppStoreVerificationError) in try wrongBundle.verifyTransaction(jws) }
        let production = try AppStoreJWSVerifier(configuration: .init(bundleId: "com.goodheartapp", environment: .production))
        expectRefusal(.environmentMismatch, jws: jws) { () throws(AppStoreVerificationError) in try production.verifyTransaction(jws) }
    }
}
