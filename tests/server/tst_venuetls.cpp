// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-admin tls: the venue CA and the server certificate it signs, as files HAProxy and Qt accept; rotating
// keeps the CA; bad names, bad addresses, existing files and an unusable directory are refused with a clear
// message and change nothing.
#include "runtime/venuetls.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSslCertificate>
#include <QSslError>
#include <QSslKey>
#include <QTemporaryDir>
#include <QHostAddress>
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

using namespace marquee;

namespace {
struct AdminRun {
    int rc = -1;
    QString out;
    QString err;
};

AdminRun admin(const QStringList &arguments)
{
    QProcess process;
    process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"), arguments);
    process.closeWriteChannel();
    AdminRun run;
    if (!process.waitForFinished(30000))
        return run;
    run.rc = process.exitCode();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QStringList tls(const QString &action, const QString &dir, const QStringList &more = {})
{
    return QStringList{QStringLiteral("tls"), action, QStringLiteral("--dir"), dir} + more;
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

int mode(const QString &path)
{
    struct stat info {};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? int(info.st_mode & 07777) : -1;
}

/**
 * @brief What OpenSSL (as HAProxy's clients and Qt use it) says of @p server for @p host with @p ca as the only
 * trust anchor, for a TLS server: an empty string when it verifies.
 */
QString verify(const QByteArray &server, const QByteArray &ca, const QString &host)
{
    BIO *serverBio = BIO_new_mem_buf(server.constData(), int(server.size()));
    BIO *caBio = BIO_new_mem_buf(ca.constData(), int(ca.size()));
    X509 *leaf = PEM_read_bio_X509(serverBio, nullptr, nullptr, nullptr);
    X509 *root = PEM_read_bio_X509(caBio, nullptr, nullptr, nullptr);
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    QString error = QStringLiteral("unreadable certificates");
    if (leaf && root && X509_STORE_add_cert(store, root) == 1 && X509_STORE_CTX_init(context, store, leaf, nullptr) == 1) {
        X509_VERIFY_PARAM *parameters = X509_STORE_CTX_get0_param(context);
        X509_VERIFY_PARAM_set_purpose(parameters, X509_PURPOSE_SSL_SERVER);
        const QByteArray name = host.toLatin1();
        if (!QHostAddress(host).isNull())
            X509_VERIFY_PARAM_set1_ip_asc(parameters, name.constData());
        else
            X509_VERIFY_PARAM_set1_host(parameters, name.constData(), size_t(name.size()));
        error = X509_verify_cert(context) == 1 ? QString() : QString::fromLatin1(X509_verify_cert_error_string(X509_STORE_CTX_get_error(context)));
    }
    X509_STORE_CTX_free(context);
    X509_STORE_free(store);
    X509_free(leaf);
    X509_free(root);
    BIO_free(serverBio);
    BIO_free(caBio);
    return error;
}

QStringList filesOf(const QString &dir)
{
    return QDir(dir).entryList(QDir::Files, QDir::Name);
}
} // namespace

TEST(VenueTls, InitMakesACaAndAServerCertificateForTheNamesAndAddresses)
{
    QTemporaryDir temp;
    const QString dir = temp.path() + QStringLiteral("/tls");
    const AdminRun init = admin(tls(QStringLiteral("init"), dir,
                               {QStringLiteral("--name"), QStringLiteral("Tickets.Venue.test"), QStringLiteral("--name"), QStringLiteral("box-office.venue.test"),
                                QStringLiteral("--ip"), QStringLiteral("192.0.2.10,2001:db8::10")}));
    ASSERT_EQ(init.rc, 0) << init.err.toStdString();
    EXPECT_EQ(filesOf(dir), (QStringList{QStringLiteral("ca.crt"), QStringLiteral("ca.key"), QStringLiteral("server.crt"), QStringLiteral("server.key"),
                                         QStringLiteral("server.pem")}));
    EXPECT_EQ(mode(dir), 0700);
    EXPECT_EQ(mode(VenueTls::caKeyFile(dir)), 0600);
    EXPECT_EQ(mode(VenueTls::serverKeyFile(dir)), 0600);
    EXPECT_EQ(mode(VenueTls::bundleFile(dir)), 0600);
    EXPECT_EQ(mode(VenueTls::caCertificateFile(dir)), 0644);

    // Qt reads them: the server certificate is signed by the CA and names exactly what was asked, lower-cased.
    const auto ca = QSslCertificate::fromPath(VenueTls::caCertificateFile(dir));
    const auto server = QSslCertificate::fromPath(VenueTls::serverCertificateFile(dir));
    ASSERT_EQ(ca.size(), 1);
    ASSERT_EQ(server.size(), 1);
    const QByteArray serverPem = contents(VenueTls::serverCertificateFile(dir));
    const QByteArray caPem = contents(VenueTls::caCertificateFile(dir));
    for (const char *host : {"tickets.venue.test", "box-office.venue.test", "192.0.2.10", "2001:db8::10"})
        EXPECT_EQ(verify(serverPem, caPem, QLatin1String(host)), QString()) << host;
    EXPECT_NE(verify(serverPem, caPem, QStringLiteral("elsewhere.test")), QString());
    EXPECT_NE(verify(serverPem, caPem, QStringLiteral("192.0.2.11")), QString());
    EXPECT_NE(verify(caPem, caPem, QStringLiteral("tickets.venue.test")), QString()) << "the CA is not a server certificate";
    EXPECT_TRUE(ca.first().isSelfSigned());
    EXPECT_EQ(server.first().issuerInfo(QSslCertificate::CommonName), ca.first().subjectInfo(QSslCertificate::CommonName));
    const auto names = server.first().subjectAlternativeNames();
    EXPECT_EQ(names.values(QSsl::AlternativeNameEntryType::DnsEntry).size(), 2);
    EXPECT_TRUE(names.values(QSsl::AlternativeNameEntryType::DnsEntry).contains(QStringLiteral("tickets.venue.test")));
    EXPECT_TRUE(names.values(QSsl::AlternativeNameEntryType::IpAddressEntry).contains(QStringLiteral("192.0.2.10")));
    EXPECT_EQ(names.values(QSsl::AlternativeNameEntryType::IpAddressEntry).size(), 2);
    EXPECT_EQ(server.first().publicKey().algorithm(), QSsl::Ec);
    EXPECT_GT(server.first().expiryDate(), QDateTime::currentDateTimeUtc().addDays(365));
    // The bundle is certificate then key, as HAProxy wants it; the key is the certificate's.
    const QByteArray bundle = contents(VenueTls::bundleFile(dir));
    EXPECT_TRUE(bundle.startsWith("-----BEGIN CERTIFICATE-----"));
    EXPECT_EQ(QSslCertificate::fromData(bundle).value(0), server.first());
    const QSslKey key(bundle.mid(bundle.indexOf("-----BEGIN PRIVATE KEY")), QSsl::Ec);
    EXPECT_FALSE(key.isNull());

    // The fingerprint printed is the CA's SHA-256 digest, as Qt (and openssl x509 -fingerprint) computes it.
    const QString fingerprint = QString::fromLatin1(ca.first().digest(QCryptographicHash::Sha256).toHex(':').toUpper());
    EXPECT_TRUE(init.out.contains(QStringLiteral("CA SHA-256 fingerprint ") + fingerprint)) << init.out.toStdString();
    const AdminRun show = admin(tls(QStringLiteral("show"), dir));
    ASSERT_EQ(show.rc, 0) << show.err.toStdString();
    EXPECT_TRUE(show.out.contains(fingerprint));
    EXPECT_TRUE(show.out.contains(QStringLiteral("tickets.venue.test, box-office.venue.test, 192.0.2.10, 2001:db8::10"))) << show.out.toStdString();
}

TEST(VenueTls, RotateGivesTheServerANewKeyFromTheSameCa)
{
    QTemporaryDir temp;
    const QString dir = temp.path();
    ASSERT_EQ(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("tickets.venue.test")})).rc, 0);
    const QByteArray ca = contents(VenueTls::caCertificateFile(dir));
    const QByteArray caKey = contents(VenueTls::caKeyFile(dir));
    const QByteArray key = contents(VenueTls::serverKeyFile(dir));
    const QByteArray certificate = contents(VenueTls::serverCertificateFile(dir));

    const AdminRun rotated = admin(tls(QStringLiteral("rotate"), dir));
    ASSERT_EQ(rotated.rc, 0) << rotated.err.toStdString();
    EXPECT_EQ(contents(VenueTls::caCertificateFile(dir)), ca);
    EXPECT_EQ(contents(VenueTls::caKeyFile(dir)), caKey);
    EXPECT_NE(contents(VenueTls::serverKeyFile(dir)), key);
    EXPECT_NE(contents(VenueTls::serverCertificateFile(dir)), certificate);
    EXPECT_EQ(verify(contents(VenueTls::serverCertificateFile(dir)), ca, QStringLiteral("tickets.venue.test")), QString()) << "the names were kept";
    EXPECT_EQ(mode(VenueTls::serverKeyFile(dir)), 0600);
    EXPECT_EQ(filesOf(dir).size(), 5) << filesOf(dir).join(QLatin1Char(' ')).toStdString(); // no temporary files left

    // New names replace the old ones.
    ASSERT_EQ(admin(tls(QStringLiteral("rotate"), dir, {QStringLiteral("--ip"), QStringLiteral("10.0.0.5")})).rc, 0);
    EXPECT_EQ(verify(contents(VenueTls::serverCertificateFile(dir)), ca, QStringLiteral("10.0.0.5")), QString());
    EXPECT_NE(verify(contents(VenueTls::serverCertificateFile(dir)), ca, QStringLiteral("tickets.venue.test")), QString());
}

TEST(VenueTls, BadInputIsRefusedClearlyAndChangesNothing)
{
    QTemporaryDir temp;
    const QString dir = temp.path() + QStringLiteral("/tls");
    const auto refused = [](const AdminRun &run, const char *says) {
        EXPECT_NE(run.rc, 0);
        EXPECT_TRUE(run.err.contains(QLatin1String(says))) << run.err.toStdString();
    };
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("bad_name.test")})), "is not a DNS name");
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("*.venue.test")})), "no wildcards");
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("a..b")})), "is not a DNS name");
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--ip"), QStringLiteral("10.1")})), "is not an IPv4 or IPv6 address");
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--ip"), QStringLiteral("10.0.0.0/8")})), "is not an IPv4 or IPv6 address");
    refused(admin(tls(QStringLiteral("init"), dir)), "at least one --name or --ip");
    refused(admin({QStringLiteral("tls"), QStringLiteral("init"), QStringLiteral("--name"), QStringLiteral("x.test")}), "usage: tls init --dir DIR");
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name")})), "usage");
    EXPECT_FALSE(QFileInfo::exists(dir)) << "a refused init made the directory";

    ASSERT_EQ(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("one.test")})).rc, 0);
    const QByteArray ca = contents(VenueTls::caCertificateFile(dir));
    refused(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("two.test")})), "exists already");
    EXPECT_EQ(contents(VenueTls::caCertificateFile(dir)), ca);
    refused(admin(tls(QStringLiteral("rotate"), dir, {QStringLiteral("--name"), QStringLiteral("bad_name")})), "is not a DNS name");
    refused(admin(tls(QStringLiteral("rotate"), dir, {QStringLiteral("--force")})), "usage");
    // --force replaces the CA.
    ASSERT_EQ(admin(tls(QStringLiteral("init"), dir, {QStringLiteral("--name"), QStringLiteral("two.test"), QStringLiteral("--force")})).rc, 0);
    EXPECT_NE(contents(VenueTls::caCertificateFile(dir)), ca);

    // A directory that is a file, and one without a CA.
    const QString file = temp.path() + QStringLiteral("/plain-file");
    QFile(file).open(QIODevice::WriteOnly);
    refused(admin(tls(QStringLiteral("init"), file, {QStringLiteral("--name"), QStringLiteral("x.test")})), "is not a directory");
    refused(admin(tls(QStringLiteral("rotate"), temp.path() + QStringLiteral("/empty"))), "is not a directory");
    refused(admin(tls(QStringLiteral("show"), temp.path())), "cannot read");
    // A server certificate another CA signed is found out.
    QTemporaryDir other;
    ASSERT_EQ(admin(tls(QStringLiteral("init"), other.path(), {QStringLiteral("--name"), QStringLiteral("x.test")})).rc, 0);
    QFile::remove(VenueTls::caCertificateFile(other.path()));
    QFile::copy(VenueTls::caCertificateFile(dir), VenueTls::caCertificateFile(other.path()));
    refused(admin(tls(QStringLiteral("show"), other.path())), "is not signed by");
}
