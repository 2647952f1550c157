// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/ticketcodec.h"

#include <QFile>
#include <QRegularExpression>
#include <QtEndian>
#include <gtest/gtest.h>

using namespace marquee;

namespace {
// RFC 8032 section 7.1, test 1 (empty message) and test 2 (one byte 0x72).
const QByteArray kRfcSecret1 = QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const QByteArray kRfcPublic1 = QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
const QByteArray kRfcSignature1 = QByteArray::fromHex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
const QByteArray kRfcSecret2 = QByteArray::fromHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
const QByteArray kRfcPublic2 = QByteArray::fromHex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
const QByteArray kRfcSignature2 = QByteArray::fromHex(
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00");

TicketPayload samplePayload()
{
    TicketPayload p;
    p.keyId = 7;
    p.ticketId = QUuid::fromString(QStringLiteral("{0f8fad5b-d9cb-469f-a165-70867728950e}"));
    p.showId = 4242;
    p.seatId = QStringLiteral("H12");
    p.validFrom = 1767225600;  // 2026-01-01T00:00:00Z
    p.validUntil = 1767240000; // 2026-01-01T04:00:00Z
    return p;
}

QString replaceSegment(const QString &qr, int index, const QByteArray &bytes)
{
    QStringList parts = qr.split(QLatin1Char('.'));
    parts[index] = QString::fromLatin1(TicketCodec::toBase64Url(bytes));
    return parts.join(QLatin1Char('.'));
}
} // namespace

TEST(TicketCodec, Rfc8032KnownAnswers)
{
    EXPECT_EQ(TicketCodec::publicKeyOf(kRfcSecret1), kRfcPublic1);
    EXPECT_EQ(TicketCodec::signBytes(QByteArray(), kRfcSecret1), kRfcSignature1);
    EXPECT_TRUE(TicketCodec::verifyBytes(QByteArray(), kRfcSignature1, kRfcPublic1));
    EXPECT_EQ(TicketCodec::publicKeyOf(kRfcSecret2), kRfcPublic2);
    EXPECT_EQ(TicketCodec::signBytes(QByteArray::fromHex("72"), kRfcSecret2), kRfcSignature2);
    EXPECT_TRUE(TicketCodec::verifyBytes(QByteArray::fromHex("72"), kRfcSignature2, kRfcPublic2));
    EXPECT_FALSE(TicketCodec::verifyBytes(QByteArray::fromHex("73"), kRfcSignature2, kRfcPublic2));
    EXPECT_FALSE(TicketCodec::verifyBytes(QByteArray::fromHex("72"), kRfcSignature2, kRfcPublic1));
}

TEST(TicketCodec, PayloadLayoutIsExactlyAsDocumented)
{
    // docs/tickets.md, byte by byte.
    const QByteArray expected = QByteArray::fromHex("01"                                // format version
                                                    "00000007"                          // key id
                                                    "0f8fad5bd9cb469fa16570867728950e"  // ticket id
                                                    "0000000000001092"                  // show id 4242
                                                    "03" "483132"                       // seat "H12"
                                                    "000000006955b900"                  // valid from
                                                    "000000006955f140");                // valid until
    EXPECT_EQ(TicketCodec::encodePayload(samplePayload()).toHex(), expected.toHex());
    const auto decoded = TicketCodec::decodePayload(expected);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, samplePayload());
}

TEST(TicketCodec, DocumentationMatchesTheCodecByteByByte)
{
    // docs/tickets.md is what other implementations (door scanners) are written from: its payload table, its worked
    // example and its example QR string are checked against the codec, so the two cannot drift apart.
    QFile file(QStringLiteral(MARQUEE_SOURCE_DIR "/docs/tickets.md"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly | QIODevice::Text)) << qPrintable(file.fileName());
    QString doc = QString::fromUtf8(file.readAll());
    const TicketPayload sample = samplePayload();
    const QByteArray payload = TicketCodec::encodePayload(sample);
    const qsizetype n = sample.seatId.toUtf8().size();

    // The table: | offset | size | field | notes |, offsets and sizes in terms of n (the seat id's length). Only the
    // MQ1 payload's own section is read: the delegation and delegated-ticket tables further down have their own test.
    const qsizetype sectionStart = doc.indexOf(QLatin1String("### Payload, byte by byte"));
    ASSERT_GE(sectionStart, 0) << "docs/tickets.md has no section \"Payload, byte by byte\"";
    const qsizetype sectionEnd = doc.indexOf(QLatin1String("\n## "), sectionStart);
    const QString payloadSection = doc.mid(sectionStart, sectionEnd < 0 ? -1 : sectionEnd - sectionStart);
    static const QRegularExpression row(QStringLiteral("^\\| (30\\+n|38\\+n|\\d+) \\| (n|\\d+) \\| ([a-z ]+?) \\|"), QRegularExpression::MultilineOption);
    auto resolve = [n](const QString &text) { return text.endsWith(QLatin1String("+n")) ? text.chopped(2).toLongLong() + n : text == QLatin1String("n") ? n : text.toLongLong(); };
    QStringList fields;
    qsizetype expectedOffset = 0;
    for (auto it = row.globalMatch(payloadSection); it.hasNext();) {
        const auto match = it.next();
        const qsizetype offset = resolve(match.captured(1));
        const qsizetype size = resolve(match.captured(2));
        const QString field = match.captured(3);
        fields << field;
        EXPECT_EQ(offset, expectedOffset) << qPrintable(field) << ": the fields follow each other without gaps";
        expectedOffset = offset + size;
        ASSERT_LE(offset + size, payload.size()) << qPrintable(field);
        const QByteArray bytes = payload.mid(offset, size);
        if (field == QLatin1String("format version"))
            EXPECT_EQ(bytes, QByteArray(1, '\x01'));
        else if (field == QLatin1String("key id"))
            EXPECT_EQ(qFromBigEndian<quint32>(bytes.constData()), sample.keyId);
        else if (field == QLatin1String("ticket id"))
            EXPECT_EQ(bytes, sample.ticketId.toRfc4122());
        else if (field == QLatin1String("show id"))
            EXPECT_EQ(qFromBigEndian<qint64>(bytes.constData()), sample.showId);
        else if (field == QLatin1String("seat id length n"))
            EXPECT_EQ(quint8(bytes[0]), quint8(n));
        else if (field == QLatin1String("seat id"))
            EXPECT_EQ(bytes, sample.seatId.toUtf8());
        else if (field == QLatin1String("valid from"))
            EXPECT_EQ(qFromBigEndian<qint64>(bytes.constData()), sample.validFrom);
        else if (field == QLatin1String("valid until"))
            EXPECT_EQ(qFromBigEndian<qint64>(bytes.constData()), sample.validUntil);
        else
            ADD_FAILURE() << "a field the codec does not know: " << qPrintable(field);
    }
    EXPECT_EQ(fields.size(), 8) << qPrintable(fields.join(QLatin1Char(',')));
    EXPECT_EQ(expectedOffset, payload.size()) << "the table covers the whole payload (46 + n bytes)";
    EXPECT_EQ(payload.size(), 46 + n);

    // The worked example's hex and QR string.
    QString hex = payload.toHex();
    EXPECT_TRUE(doc.remove(QLatin1Char(' ')).contains(hex)) << "the worked example's bytes are not in docs/tickets.md: " << qPrintable(hex);
    EXPECT_TRUE(doc.contains(TicketCodec::sign(sample, kRfcSecret1))) << "the example QR string differs from the codec's";
}

TEST(TicketCodec, KnownAnswerRoundTrip)
{
    // Ed25519 is deterministic: this exact string is what the server issues for this payload and key, and
    // what any other implementation (the app, a door scanner) must accept.
    const QString qr = TicketCodec::sign(samplePayload(), kRfcSecret1);
    const QString expected = QStringLiteral(
        "MQ1.AQAAAAcPj61b2ctGn6FlcIZ3KJUOAAAAAAAAEJIDSDEyAAAAAGlVuQAAAAAAaVXxQA."
        "SmqoeecRVkHHCyWfB7thO6HgI3YWaVpXg5AKTspn2fv5nu0aP_CpoooQ4d18BGRhQIJuJgeMLJiwweCo2ueAAg");
    EXPECT_EQ(qr, expected);
    const TicketVerification v = TicketCodec::verify(qr, {{7u, kRfcPublic1}});
    EXPECT_EQ(v.result, TicketCheck::Ok);
    EXPECT_EQ(v.payload, samplePayload());
}

TEST(TicketCodec, GeneratedKeysSignAndVerify)
{
    const auto a = TicketCodec::generateKeyPair();
    const auto b = TicketCodec::generateKeyPair();
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->privateKey.size(), 32);
    EXPECT_EQ(a->publicKey.size(), 32);
    EXPECT_NE(a->privateKey, b->privateKey);
    EXPECT_EQ(TicketCodec::publicKeyOf(a->privateKey), a->publicKey);

    TicketPayload payload = samplePayload();
    payload.seatId = QStringLiteral("Balcón-Ü7"); // non-ASCII survives
    const QString qr = TicketCodec::sign(payload, a->privateKey);
    ASSERT_TRUE(qr.startsWith(QLatin1String("MQ1.")));
    EXPECT_FALSE(qr.contains(QLatin1Char('=')) || qr.contains(QLatin1Char('+')) || qr.contains(QLatin1Char('/')));
    const auto ok = TicketCodec::verify(qr, {{7u, a->publicKey}, {8u, b->publicKey}});
    EXPECT_EQ(ok.result, TicketCheck::Ok);
    EXPECT_EQ(ok.payload.seatId, payload.seatId);
}

TEST(TicketCodec, WrongKeyIsInvalidSignatureAndMissingKeyIsUnknown)
{
    const auto a = TicketCodec::generateKeyPair();
    const auto b = TicketCodec::generateKeyPair();
    const QString qr = TicketCodec::sign(samplePayload(), a->privateKey);
    EXPECT_EQ(TicketCodec::verify(qr, {{7u, b->publicKey}}).result, TicketCheck::InvalidSignature);
    const auto unknown = TicketCodec::verify(qr, {{8u, a->publicKey}});
    EXPECT_EQ(unknown.result, TicketCheck::UnknownKey);
    EXPECT_EQ(unknown.payload.keyId, 7u);
    EXPECT_EQ(TicketCodec::verify(qr, {}).result, TicketCheck::UnknownKey);
}

TEST(TicketCodec, TamperedPayloadFailsTheSignature)
{
    const auto key = TicketCodec::generateKeyPair();
    const QString qr = TicketCodec::sign(samplePayload(), key->privateKey);
    const QHash<quint32, QByteArray> keys{{7u, key->publicKey}};

    // Another seat, a later valid-until, another show: each a well-formed payload with the old signature.
    TicketPayload seat = samplePayload();
    seat.seatId = QStringLiteral("H13");
    TicketPayload longer = samplePayload();
    longer.validUntil += 86400;
    TicketPayload show = samplePayload();
    show.showId += 1;
    for (const TicketPayload &forged : {seat, longer, show}) {
        const auto v = TicketCodec::verify(replaceSegment(qr, 1, TicketCodec::encodePayload(forged)), keys);
        EXPECT_EQ(v.result, TicketCheck::InvalidSignature);
    }
    // Every single bit flip of the payload bytes is caught (as malformed or as a bad signature).
    const QByteArray original = TicketCodec::encodePayload(samplePayload());
    for (int i = 0; i < original.size() * 8; ++i) {
        QByteArray flipped = original;
        flipped[i / 8] = char(flipped[i / 8] ^ (1 << (i % 8)));
        const auto v = TicketCodec::verify(replaceSegment(qr, 1, flipped), keys);
        EXPECT_NE(v.result, TicketCheck::Ok) << "bit " << i;
    }
    // A flipped signature bit too.
    QByteArray signature = *TicketCodec::fromBase64Url(qr.split(QLatin1Char('.'))[2].toLatin1());
    signature[10] = char(signature[10] ^ 0x01);
    EXPECT_EQ(TicketCodec::verify(replaceSegment(qr, 2, signature), keys).result, TicketCheck::InvalidSignature);
}

TEST(TicketCodec, MalformedStringsAreRefused)
{
    const auto key = TicketCodec::generateKeyPair();
    const QString qr = TicketCodec::sign(samplePayload(), key->privateKey);
    const QHash<quint32, QByteArray> keys{{7u, key->publicKey}};
    ASSERT_EQ(TicketCodec::verify(qr, keys).result, TicketCheck::Ok);

    // Every truncation of a valid string.
    for (qsizetype n = 0; n < qr.size(); ++n)
        EXPECT_EQ(TicketCodec::verify(qr.left(n), keys).result, TicketCheck::Malformed) << n;

    const QStringList garbage = {
        QString(),
        QStringLiteral("MQ1."),
        QStringLiteral("MQ1.."),
        QStringLiteral("MQ2") + qr.mid(3),            // another format prefix
        QStringLiteral("mq1") + qr.mid(3),
        qr + QStringLiteral(".AAAA"),                  // a third segment
        qr + QStringLiteral("="),                      // padding
        qr + QStringLiteral("AA"),                     // longer signature
        QString(qr).replace(4, 1, QStringLiteral("*")), // not base64url
        QString(qr).replace(4, 1, QStringLiteral("+")), // standard base64, not url-safe
        QStringLiteral(" ") + qr,
        qr + QStringLiteral("\n"),
        QStringLiteral("MQ1.!!!!.????"),
        QStringLiteral("MQ1.%1.%2").arg(QString(200, QLatin1Char('A')), QString(86, QLatin1Char('A'))),
        QString(100000, QLatin1Char('A')),
        QStringLiteral("MQ1.AQ.") + qr.split(QLatin1Char('.'))[2],
        QStringLiteral("MQ1.\u00e9\u00e9\u00e9\u00e9.AAAA"),
    };
    for (const QString &text : garbage)
        EXPECT_EQ(TicketCodec::verify(text, keys).result, TicketCheck::Malformed) << text.left(80).toStdString();

    // A payload of another format version, or with trailing bytes, correctly signed, is still malformed.
    QByteArray v2 = TicketCodec::encodePayload(samplePayload());
    v2[0] = 2;
    const QString qrV2 = QStringLiteral("MQ1.%1.%2").arg(QString::fromLatin1(TicketCodec::toBase64Url(v2)),
                                                         QString::fromLatin1(TicketCodec::toBase64Url(TicketCodec::signBytes(v2, key->privateKey))));
    EXPECT_EQ(TicketCodec::verify(qrV2, keys).result, TicketCheck::Malformed);
    const QByteArray longer = TicketCodec::encodePayload(samplePayload()) + "x";
    const QString qrLonger = QStringLiteral("MQ1.%1.%2").arg(QString::fromLatin1(TicketCodec::toBase64Url(longer)),
                                                             QString::fromLatin1(TicketCodec::toBase64Url(TicketCodec::signBytes(longer, key->privateKey))));
    EXPECT_EQ(TicketCodec::verify(qrLonger, keys).result, TicketCheck::Malformed);
}

TEST(TicketCodec, Base64UrlIsStrictAndCanonical)
{
    EXPECT_EQ(TicketCodec::toBase64Url(QByteArray("\xfb\xff", 2)), QByteArray("-_8"));
    EXPECT_EQ(TicketCodec::fromBase64Url("-_8"), QByteArray("\xfb\xff", 2));
    EXPECT_FALSE(TicketCodec::fromBase64Url("-_9")); // same bytes, non-zero trailing bits
    EXPECT_FALSE(TicketCodec::fromBase64Url("-_8="));
    EXPECT_FALSE(TicketCodec::fromBase64Url("+/8"));
    EXPECT_FALSE(TicketCodec::fromBase64Url("A"));
    EXPECT_FALSE(TicketCodec::fromBase64Url(""));
}

TEST(TicketCodec, OutOfRangeFieldsAreNotEncoded)
{
    const auto key = TicketCodec::generateKeyPair();
    TicketPayload p = samplePayload();
    p.seatId = QString(65, QLatin1Char('S'));
    EXPECT_TRUE(TicketCodec::encodePayload(p).isEmpty());
    EXPECT_TRUE(TicketCodec::sign(p, key->privateKey).isEmpty());
    p.seatId = QString(64, QLatin1Char('S'));
    EXPECT_FALSE(TicketCodec::sign(p, key->privateKey).isEmpty());
    p = samplePayload();
    p.seatId.clear();
    EXPECT_TRUE(TicketCodec::encodePayload(p).isEmpty());
    p = samplePayload();
    p.validUntil = p.validFrom;
    EXPECT_TRUE(TicketCodec::encodePayload(p).isEmpty());
    p = samplePayload();
    p.ticketId = QUuid();
    EXPECT_TRUE(TicketCodec::encodePayload(p).isEmpty());
    p = samplePayload();
    p.keyId = 0;
    EXPECT_TRUE(TicketCodec::encodePayload(p).isEmpty());
    EXPECT_TRUE(TicketCodec::sign(samplePayload(), QByteArray(31, 'k')).isEmpty());
    EXPECT_TRUE(TicketCodec::publicKeyOf(QByteArray(33, 'k')).isEmpty());
}

// The fuzz target's seed QR (tests/fuzz/make-seeds.py signs it outside the codec) is exactly what the codec
// signs for its fields: fuzz_ticketcodec starts from a ticket that verifies, and the two implementations agree.
TEST(TicketCodec, FuzzSeedIsWhatTheCodecSigns)
{
    QFile file(QStringLiteral(MARQUEE_SOURCE_DIR "/tests/fuzz/corpus/fuzz_ticketcodec/valid"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QString seed = QString::fromLatin1(file.readAll());
    QByteArray privateKey;
    for (char c = 1; c <= 32; ++c)
        privateKey.append(c);
    TicketPayload payload;
    payload.keyId = 7;
    payload.ticketId = QUuid::fromString(QStringLiteral("6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b"));
    payload.showId = 12;
    payload.seatId = QStringLiteral("H14");
    payload.validFrom = 1777660200;
    payload.validUntil = 1777671000;
    EXPECT_EQ(TicketCodec::sign(payload, privateKey), seed);
    const TicketVerification verification = TicketCodec::verify(seed, {{7, TicketCodec::publicKeyOf(privateKey)}});
    EXPECT_EQ(verification.result, TicketCheck::Ok);
    EXPECT_EQ(verification.payload, payload);
}
