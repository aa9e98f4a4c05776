package io.netty.handler.ssl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A client TLS context that negotiates HTTP/2 by ALPN with the JDK's own TLS
 * (Java 9+), for gRPC over Debian's Netty.
 *
 * <p>Debian's libnetty-java leaves out Netty's JdkAlpnApplicationProtocolNegotiator,
 * so {@code GrpcSslContexts.forClient().build()} fails there with "JDK
 * provider does not support ALPN protocol", although the engine that does
 * the work (Java9SslEngine) is in the jar. This class, in Netty's package
 * because those classes are package-private, puts the two together as
 * Netty's own negotiator does on Java 9 and later.
 */
@SuppressWarnings("deprecation") // Netty deprecates the JDK negotiator API it still uses itself
public final class JdkAlpnClient {
  private JdkAlpnClient() {}

  /** A client context that trusts the certificates of {@code pem} and offers "h2". */
  public static SslContext trusting(Path pem) throws IOException, GeneralSecurityException {
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    trusted.load(null, null);
    try (InputStream in = Files.newInputStream(pem)) {
      int i = 0;
      for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trusted.setCertificateEntry("ca-" + i++, certificate);
      }
    }
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    JdkApplicationProtocolNegotiator alpn = new JdkBaseApplicationProtocolNegotiator(
        (engine, negotiator, isServer) -> new Java9SslEngine(engine, negotiator, isServer),
        JdkBaseApplicationProtocolNegotiator.FAIL_SELECTOR_FACTORY,
        JdkBaseApplicationProtocolNegotiator.FAIL_SELECTION_LISTENER_FACTORY,
        "h2");
    return new JdkSslContext(context, true, null, IdentityCipherSuiteFilter.INSTANCE, alpn, ClientAuth.NONE,
        null, false);
  }
}
