#pragma once

// A throwaway self-signed certificate for TLS tests: "127.0.0.1" as its subject and as an IP
// address in subjectAltName (what host-name verification of an IP address checks).

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "server/transport/config.h"

namespace melee::testing {

// Writes <prefix>cert.pem and <prefix>key.pem into `dir`: a certificate valid from
// `valid_from_seconds` to `valid_until_seconds` from now (negative: in the past; both negative
// make an expired certificate).
inline void MakeCertificate(const std::filesystem::path& dir, long valid_from_seconds = 0,
                            long valid_until_seconds = 3600, const std::string& prefix = "") {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  ASSERT_NE(key, nullptr);
  X509* cert = X509_new();
  ASSERT_NE(cert, nullptr);
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), valid_from_seconds);
  X509_gmtime_adj(X509_getm_notAfter(cert), valid_until_seconds);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* san =
      X509V3_EXT_conf_nid(nullptr, &context, NID_subject_alt_name, "IP:127.0.0.1");
  ASSERT_NE(san, nullptr);
  X509_add_ext(cert, san, -1);
  X509_EXTENSION_free(san);
  ASSERT_GT(X509_sign(cert, key, EVP_sha256()), 0);
  FILE* key_file = std::fopen((dir / (prefix + "key.pem")).c_str(), "w");
  FILE* cert_file = std::fopen((dir / (prefix + "cert.pem")).c_str(), "w");
  ASSERT_TRUE(key_file && cert_file);
  PEM_write_PrivateKey(key_file, key, nullptr, nullptr, 0, nullptr, nullptr);
  PEM_write_X509(cert_file, cert);
  std::fclose(key_file);
  std::fclose(cert_file);
  X509_free(cert);
  EVP_PKEY_free(key);
}

// A server configuration that speaks TLS with a fresh certificate written into `dir`.
inline melee::server::ServerConfig TlsConfig(const std::filesystem::path& dir) {
  MakeCertificate(dir);
  melee::server::ServerConfig config;
  config.tls_certificate = dir / "cert.pem";
  config.tls_private_key = dir / "key.pem";
  return config;
}

}  // namespace melee::testing
