// SPDX-License-Identifier: AGPL-3.0-or-later
#include "runtime/venuetls.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace marquee {

namespace {
struct Free {
    void operator()(EVP_PKEY *p) const { EVP_PKEY_free(p); }
    void operator()(X509 *p) const { X509_free(p); }
    void operator()(BIO *p) const { BIO_free(p); }
    void operator()(BIGNUM *p) const { BN_free(p); }
    void operator()(GENERAL_NAMES *p) const { GENERAL_NAMES_free(p); }
    void operator()(X509_EXTENSION *p) const { X509_EXTENSION_free(p); }
};
template<typename T>
using Owned = std::unique_ptr<T, Free>;

QString systemError(const QString &what, const QString &path)
{
    return QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(std::strerror(errno)));
}

/** @brief Write @p data to @p path with @p mode, completely or not at all (a temporary file renamed over it). */
bool writeFile(const QString &path, const QByteArray &data, mode_t mode, QString *error)
{
    const QByteArray temporary = QFile::encodeName(path + QStringLiteral(".%1.tmp").arg(::getpid()));
    const int fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) {
        *error = systemError(QStringLiteral("cannot create"), path);
        return false;
    }
    const bool written = ::fchmod(fd, mode) == 0 && ::write(fd, data.constData(), size_t(data.size())) == data.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!written || ::rename(temporary.constData(), QFile::encodeName(path).constData()) != 0) {
        *error = systemError(QStringLiteral("cannot write"), path);
        ::unlink(temporary.constData());
        return false;
    }
    return true;
}

std::optional<QByteArray> readFile(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    return file.readAll();
}

QByteArray toPem(X509 *certificate)
{
    Owned<BIO> bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_X509(bio.get(), certificate);
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return QByteArray(data, size);
}

QByteArray toPem(EVP_PKEY *key)
{
    Owned<BIO> bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return QByteArray(data, size);
}

Owned<X509> certificateFrom(const QByteArray &pem)
{
    Owned<BIO> bio(BIO_new_mem_buf(pem.constData(), int(pem.size())));
    return Owned<X509>(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

Owned<EVP_PKEY> keyFrom(const QByteArray &pem)
{
    Owned<BIO> bio(BIO_new_mem_buf(pem.constData(), int(pem.size())));
    return Owned<EVP_PKEY>(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

QDateTime toDateTime(const ASN1_TIME *time)
{
    struct tm parts {};
    if (ASN1_TIME_to_tm(time, &parts) != 1)
        return {};
    return QDateTime(QDate(parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday), QTime(parts.tm_hour, parts.tm_min, parts.tm_sec),
                     Qt::UTC);
}

QString subjectText(X509 *certificate)
{
    char buffer[512];
    X509_NAME_oneline(X509_get_subject_name(certificate), buffer, sizeof buffer);
    return QString::fromUtf8(buffer);
}

bool addExtension(X509 *certificate, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX context;
    X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    Owned<X509_EXTENSION> extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value));
    return extension && X509_add_ext(certificate, extension.get(), -1) == 1;
}

/** @brief An unsigned certificate for @p key: random 127-bit serial, valid from five minutes ago for @p days. */
Owned<X509> newCertificate(EVP_PKEY *key, const QString &commonName, int days)
{
    Owned<X509> certificate(X509_new());
    Owned<BIGNUM> serial(BN_new());
    if (!certificate || !serial || X509_set_version(certificate.get(), 2) != 1 || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1
        || !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate.get())))
        return {};
    X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -300);
    X509_gmtime_adj(X509_getm_notAfter(certificate.get()), long(days) * 24 * 3600);
    X509_NAME *name = X509_get_subject_name(certificate.get());
    const QByteArray cn = commonName.left(64).toUtf8();
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char *>("Marquee"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char *>(cn.constData()), -1, -1, 0);
    if (X509_set_pubkey(certificate.get(), key) != 1)
        return {};
    return certificate;
}

bool addAlternativeNames(X509 *certificate, const VenueTls::Subject &subject)
{
    Owned<GENERAL_NAMES> names(GENERAL_NAMES_new());
    for (const QString &dns : subject.dnsNames) {
        GENERAL_NAME *name = GENERAL_NAME_new();
        ASN1_IA5STRING *text = ASN1_IA5STRING_new();
        const QByteArray bytes = dns.toLatin1();
        ASN1_STRING_set(text, bytes.constData(), int(bytes.size()));
        GENERAL_NAME_set0_value(name, GEN_DNS, text);
        sk_GENERAL_NAME_push(names.get(), name);
    }
    for (const QHostAddress &address : subject.addresses) {
        QByteArray raw;
        if (address.protocol() == QAbstractSocket::IPv4Protocol) {
            const quint32 v4 = address.toIPv4Address();
            const char bytes[4] = {char(v4 >> 24), char(v4 >> 16), char(v4 >> 8), char(v4)};
            raw = QByteArray(bytes, 4);
        } else {
            const Q_IPV6ADDR v6 = address.toIPv6Address();
            raw = QByteArray(reinterpret_cast<const char *>(v6.c), 16);
        }
        GENERAL_NAME *name = GENERAL_NAME_new();
        ASN1_OCTET_STRING *octets = ASN1_OCTET_STRING_new();
        ASN1_OCTET_STRING_set(octets, reinterpret_cast<const unsigned char *>(raw.constData()), int(raw.size()));
        GENERAL_NAME_set0_value(name, GEN_IPADD, octets);
        sk_GENERAL_NAME_push(names.get(), name);
    }
    return X509_add1_ext_i2d(certificate, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) == 1;
}

VenueTls::Subject alternativeNames(X509 *certificate)
{
    VenueTls::Subject subject;
    auto *names = static_cast<GENERAL_NAMES *>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr));
    if (!names)
        return subject;
    Owned<GENERAL_NAMES> owned(names);
    for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, i);
        if (name->type == GEN_DNS) {
            subject.dnsNames << QString::fromLatin1(reinterpret_cast<const char *>(ASN1_STRING_get0_data(name->d.dNSName)),
                                                    ASN1_STRING_length(name->d.dNSName));
        } else if (name->type == GEN_IPADD) {
            const int length = ASN1_STRING_length(name->d.iPAddress);
            const unsigned char *data = ASN1_STRING_get0_data(name->d.iPAddress);
            if (length == 4)
                subject.addresses << QHostAddress(quint32(data[0]) << 24 | quint32(data[1]) << 16 | quint32(data[2]) << 8 | data[3]);
            else if (length == 16)
                subject.addresses << QHostAddress(data);
        }
    }
    return subject;
}

/** @brief A new server key and certificate for @p subject signed by @p ca / @p caKey: {certificate PEM, key PEM}. */
std::optional<std::pair<QByteArray, QByteArray>> issueServer(X509 *ca, EVP_PKEY *caKey, const VenueTls::Subject &subject, QString *error)
{
    Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
    const QString commonName = subject.dnsNames.isEmpty() ? subject.addresses.first().toString() : subject.dnsNames.first();
    Owned<X509> certificate = key ? newCertificate(key.get(), commonName, VenueTls::kServerDays) : Owned<X509>();
    const bool built = certificate && X509_set_issuer_name(certificate.get(), X509_get_subject_name(ca)) == 1
        && addExtension(certificate.get(), ca, NID_basic_constraints, "critical,CA:FALSE")
        && addExtension(certificate.get(), ca, NID_key_usage, "critical,digitalSignature")
        && addExtension(certificate.get(), ca, NID_ext_key_usage, "serverAuth")
        && addExtension(certificate.get(), ca, NID_subject_key_identifier, "hash")
        && addExtension(certificate.get(), ca, NID_authority_key_identifier, "keyid:always")
        && addAlternativeNames(certificate.get(), subject) && X509_sign(certificate.get(), caKey, EVP_sha256()) > 0;
    if (!built) {
        *error = QStringLiteral("OpenSSL could not make the server certificate");
        return std::nullopt;
    }
    return std::pair{toPem(certificate.get()), toPem(key.get())};
}

bool writeServer(const QString &dir, const std::pair<QByteArray, QByteArray> &server, QString *error)
{
    // The bundle last: it is what HAProxy reads, and it is whole whenever it exists.
    return writeFile(VenueTls::serverKeyFile(dir), server.second, 0600, error)
        && writeFile(VenueTls::serverCertificateFile(dir), server.first, 0644, error)
        && writeFile(VenueTls::bundleFile(dir), server.first + server.second, 0600, error);
}

bool usableDirectory(const QString &dir, QString *error)
{
    const QFileInfo info(dir);
    if (!info.isDir()) {
        *error = QStringLiteral("%1 is not a directory").arg(dir);
        return false;
    }
    if (::access(QFile::encodeName(dir).constData(), R_OK | W_OK | X_OK) != 0) {
        *error = systemError(QStringLiteral("cannot use the directory"), dir);
        return false;
    }
    return true;
}
} // namespace

QString VenueTls::caCertificateFile(const QString &dir) { return dir + QStringLiteral("/ca.crt"); }
QString VenueTls::caKeyFile(const QString &dir) { return dir + QStringLiteral("/ca.key"); }
QString VenueTls::serverCertificateFile(const QString &dir) { return dir + QStringLiteral("/server.crt"); }
QString VenueTls::serverKeyFile(const QString &dir) { return dir + QStringLiteral("/server.key"); }
QString VenueTls::bundleFile(const QString &dir) { return dir + QStringLiteral("/server.pem"); }

std::optional<VenueTls::Subject> VenueTls::subject(const QStringList &names, const QStringList &ips, QString *error)
{
    static const QRegularExpression label(QStringLiteral("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"));
    Subject subject;
    for (const QString &given : names) {
        const QString name = given.toLower();
        const QStringList labels = name.split(QLatin1Char('.'));
        const bool valid = !name.isEmpty() && name.size() <= 253
            && std::all_of(labels.begin(), labels.end(), [](const QString &part) { return label.match(part).hasMatch(); });
        if (!valid) {
            *error = QStringLiteral("--name '%1' is not a DNS name (letters, digits and '-' in dot-separated labels, no wildcards)").arg(given);
            return std::nullopt;
        }
        if (!subject.dnsNames.contains(name))
            subject.dnsNames << name;
    }
    for (const QString &given : ips) {
        QHostAddress address;
        // Strictly dotted quads or IPv6: inet_aton would take "10.1" as 10.0.0.1, which nobody means.
        static const QRegularExpression dottedQuad(QStringLiteral("^[0-9]{1,3}(\\.[0-9]{1,3}){3}$"));
        const bool plausible = given.contains(QLatin1Char(':')) || dottedQuad.match(given).hasMatch();
        if (!plausible || given.contains(QLatin1Char('/')) || !address.setAddress(given)) {
            *error = QStringLiteral("--ip '%1' is not an IPv4 or IPv6 address").arg(given);
            return std::nullopt;
        }
        bool isV4 = false;
        const quint32 v4 = address.toIPv4Address(&isV4);
        if (isV4)
            address = QHostAddress(v4);
        if (!subject.addresses.contains(address))
            subject.addresses << address;
    }
    if (subject.dnsNames.isEmpty() && subject.addresses.isEmpty()) {
        *error = QStringLiteral("the server certificate needs at least one --name or --ip (what the devices connect to)");
        return std::nullopt;
    }
    return subject;
}

bool VenueTls::init(const QString &dir, const Subject &subject, bool force, QString *error)
{
    if (!QFileInfo::exists(dir) && !QDir().mkpath(dir)) {
        *error = systemError(QStringLiteral("cannot create the directory"), dir);
        return false;
    }
    if (!QFileInfo::exists(dir + QStringLiteral("/."))) {
        *error = QStringLiteral("%1 is not a directory").arg(dir);
        return false;
    }
    ::chmod(QFile::encodeName(dir).constData(), 0700);
    if (!usableDirectory(dir, error))
        return false;
    if (!force) {
        for (const QString &file : {caCertificateFile(dir), caKeyFile(dir), serverCertificateFile(dir), serverKeyFile(dir), bundleFile(dir)}) {
            if (QFileInfo::exists(file)) {
                *error = QStringLiteral("%1 exists already; tls rotate renews the server certificate, tls init --force replaces the CA too "
                                        "(every device then needs the new ca.crt)")
                             .arg(file);
                return false;
            }
        }
    }
    Owned<EVP_PKEY> caKey(EVP_EC_gen("P-256"));
    const QString caName = QStringLiteral("Marquee venue CA %1").arg(subject.dnsNames.isEmpty() ? subject.addresses.first().toString() : subject.dnsNames.first());
    Owned<X509> ca = caKey ? newCertificate(caKey.get(), caName, kCaDays) : Owned<X509>();
    const bool built = ca && X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) == 1
        && addExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
        && addExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign")
        && addExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash")
        && X509_sign(ca.get(), caKey.get(), EVP_sha256()) > 0;
    if (!built) {
        *error = QStringLiteral("OpenSSL could not make the CA certificate");
        return false;
    }
    const auto server = issueServer(ca.get(), caKey.get(), subject, error);
    return server && writeFile(caKeyFile(dir), toPem(caKey.get()), 0600, error) && writeFile(caCertificateFile(dir), toPem(ca.get()), 0644, error)
        && writeServer(dir, *server, error);
}

bool VenueTls::rotate(const QString &dir, const Subject &subject, QString *error)
{
    if (!usableDirectory(dir, error))
        return false;
    const auto caPem = readFile(caCertificateFile(dir), error);
    const auto caKeyPem = caPem ? readFile(caKeyFile(dir), error) : std::nullopt;
    if (!caKeyPem)
        return false;
    Owned<X509> ca = certificateFrom(*caPem);
    Owned<EVP_PKEY> caKey = keyFrom(*caKeyPem);
    if (!ca || !caKey || X509_check_private_key(ca.get(), caKey.get()) != 1) {
        *error = QStringLiteral("%1 and %2 are not a CA certificate and its key").arg(caCertificateFile(dir), caKeyFile(dir));
        return false;
    }
    Subject names = subject;
    if (names.dnsNames.isEmpty() && names.addresses.isEmpty()) {
        const auto current = readFile(serverCertificateFile(dir), error);
        Owned<X509> certificate = current ? certificateFrom(*current) : Owned<X509>();
        if (certificate)
            names = alternativeNames(certificate.get());
        if (names.dnsNames.isEmpty() && names.addresses.isEmpty()) {
            *error = QStringLiteral("no current server certificate to take the names from: give --name or --ip");
            return false;
        }
    }
    const auto server = issueServer(ca.get(), caKey.get(), names, error);
    return server && writeServer(dir, *server, error);
}

std::optional<VenueTls::Summary> VenueTls::show(const QString &dir, QString *error)
{
    const auto caPem = readFile(caCertificateFile(dir), error);
    const auto serverPem = caPem ? readFile(serverCertificateFile(dir), error) : std::nullopt;
    const auto keyPem = serverPem ? readFile(serverKeyFile(dir), error) : std::nullopt;
    if (!keyPem)
        return std::nullopt;
    Owned<X509> ca = certificateFrom(*caPem);
    Owned<X509> server = certificateFrom(*serverPem);
    Owned<EVP_PKEY> key = keyFrom(*keyPem);
    if (!ca || !server || !key) {
        *error = QStringLiteral("%1 holds files that are not PEM certificates and keys").arg(dir);
        return std::nullopt;
    }
    if (X509_verify(server.get(), X509_get0_pubkey(ca.get())) != 1) {
        *error = QStringLiteral("%1 is not signed by %2").arg(serverCertificateFile(dir), caCertificateFile(dir));
        return std::nullopt;
    }
    if (X509_check_private_key(server.get(), key.get()) != 1) {
        *error = QStringLiteral("%1 does not belong to %2").arg(serverKeyFile(dir), serverCertificateFile(dir));
        return std::nullopt;
    }
    Summary summary;
    summary.caSubject = subjectText(ca.get());
    summary.caFingerprint = fingerprint(*caPem);
    summary.caNotAfter = toDateTime(X509_get0_notAfter(ca.get()));
    summary.server = alternativeNames(server.get());
    summary.serverFingerprint = fingerprint(*serverPem);
    summary.serverNotAfter = toDateTime(X509_get0_notAfter(server.get()));
    return summary;
}

QString VenueTls::fingerprint(const QByteArray &pem)
{
    Owned<X509> certificate = certificateFrom(pem);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!certificate || X509_digest(certificate.get(), EVP_sha256(), digest, &length) != 1)
        return {};
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex(':').toUpper());
}

} // namespace marquee
