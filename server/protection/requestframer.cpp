// SPDX-License-Identifier: AGPL-3.0-or-later
#include "protection/requestframer.h"

#include "protection/requestid.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cstring>

namespace marquee::protection {

namespace {
constexpr int kMaxChunkLine = 1024;

bool isTokenChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= '0' && u <= '9')
        return true;
    if ((u | 0x20) >= 'a' && (u | 0x20) <= 'z')
        return true;
    return u != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool isToken(const QByteArray &text)
{
    if (text.isEmpty())
        return false;
    for (char c : text) {
        if (!isTokenChar(c))
            return false;
    }
    return true;
}

// Field values: visible ASCII, space, tab and obs-text; never another control character (NUL, CR, LF, DEL...).
bool isFieldValue(const QByteArray &text)
{
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7f)
            return false;
    }
    return true;
}

QByteArray trimmedOws(const QByteArray &text)
{
    qsizetype begin = 0, end = text.size();
    while (begin < end && (text[begin] == ' ' || text[begin] == '\t'))
        ++begin;
    while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t'))
        --end;
    return text.mid(begin, end - begin);
}

bool hasToken(const QByteArray &list, const QByteArray &token)
{
    for (const QByteArray &item : list.split(',')) {
        if (trimmedOws(item).compare(token, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

FramingViolation badRequest(const char *message)
{
    return {400, "malformed_request", message};
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 431:
        return "Request Header Fields Too Large";
    default:
        return "Error";
    }
}
} // namespace

FramingLimits::Parsed FramingLimits::parseOption(const QString &option, const QString &value, QString *error)
{
    int *target = nullptr;
    int min = 1, max = 3600, scale = 1000;
    if (option == QLatin1String("--header-timeout"))
        target = &headerTimeoutMs;
    else if (option == QLatin1String("--body-timeout"))
        target = &bodyTimeoutMs;
    else if (option == QLatin1String("--idle-timeout"))
        target = &idleTimeoutMs;
    else if (option == QLatin1String("--max-header-bytes")) {
        target = &maxHeaderBytes;
        min = 1024;
        max = 1024 * 1024;
        scale = 1;
    } else
        return Parsed::NotMine;
    bool ok = false;
    const int number = value.toInt(&ok);
    if (!ok || number < min || number > max) {
        *error = QStringLiteral("%1 must be an integer from %2 to %3").arg(option).arg(min).arg(max);
        return Parsed::Bad;
    }
    *target = number * scale;
    return Parsed::Ok;
}

QString FramingLimits::usage()
{
    return QStringLiteral(
        "  --header-timeout SECONDS    a request head must arrive within this (default 10; else 408 and closed)\n"
        "  --body-timeout SECONDS      a request body must arrive within this after its head (default 30)\n"
        "  --idle-timeout SECONDS      a keep-alive connection with nothing in flight is closed after this (default "
        "60)\n"
        "  --max-header-bytes N        request line and header fields together at most (default 16384; else 431)\n");
}

QByteArray FramingViolation::response() const
{
    const QByteArray body = QJsonDocument(QJsonObject {{QStringLiteral("error"), QString::fromLatin1(code)},
                                              {QStringLiteral("message"), QString::fromUtf8(message)}})
                                .toJson(QJsonDocument::Compact);
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
        + "\r\nContent-Type: application/json\r\nConnection: close\r\nX-Request-Id: " + newRequestId()
        + "\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

RequestFramer::RequestFramer(const FramingLimits &limits)
    : m_limits(limits)
{
}

qint64 RequestFramer::skippable() const
{
    if (m_phase != Phase::Body)
        return 0;
    return (m_body == Body::Length || m_body == Body::ChunkData) ? m_remaining : 0;
}

void RequestFramer::skip(qint64 count)
{
    Q_ASSERT(count <= skippable());
    m_remaining -= count;
    if (m_remaining > 0)
        return;
    if (m_body == Body::Length)
        requestComplete();
    else if (m_body == Body::ChunkData)
        m_body = Body::ChunkDataEnd;
}

std::optional<FramingViolation> RequestFramer::lineByte(char c, QByteArray &line, bool *lineDone)
{
    *lineDone = false;
    if (m_cr) {
        if (c != '\n')
            return badRequest("A CR must be followed by LF.");
        m_cr = false;
        *lineDone = true;
        return std::nullopt;
    }
    if (c == '\n')
        return badRequest("Lines end with CRLF; a bare LF is not accepted.");
    if (c == '\r')
        m_cr = true;
    else
        line.append(c);
    return std::nullopt;
}

std::optional<FramingViolation> RequestFramer::feed(const char *data, qint64 size, qint64 *used)
{
    qint64 i = 0;
    auto stop = [&](std::optional<FramingViolation> violation) {
        *used = i;
        if (violation)
            m_phase = Phase::Failed;
        return violation;
    };
    while (i < size) {
        if (m_phase == Phase::Upgraded || m_phase == Phase::Failed) {
            i = size;
            break;
        }
        if (skippable() > 0)
            return stop(std::nullopt);
        const char c = data[i];
        if (m_phase == Phase::Idle) {
            // Empty lines before a request line are allowed (RFC 9112, section 2.2), bare LF and stray CR are not.
            if (m_cr) {
                if (c != '\n')
                    return stop(badRequest("A CR must be followed by LF."));
                m_cr = false;
                ++i;
                continue;
            }
            if (c == '\n')
                return stop(badRequest("Lines end with CRLF; a bare LF is not accepted."));
            if (c == '\r') {
                m_cr = true;
                ++i;
                continue;
            }
            m_phase = Phase::Head;
        }
        if (m_phase == Phase::Head) {
            if (m_head.size() >= m_limits.maxHeaderBytes)
                return stop(FramingViolation {
                    431, "headers_too_large", "The request line and header fields are larger than the limit."});
            m_head.append(c);
            ++i;
            if (m_cr) {
                if (c != '\n')
                    return stop(badRequest("A CR must be followed by LF."));
                m_cr = false;
                if (m_head.endsWith("\r\n\r\n")) {
                    if (auto violation = headComplete())
                        return stop(violation);
                }
            } else if (c == '\n') {
                return stop(badRequest("Lines end with CRLF; a bare LF is not accepted."));
            } else if (c == '\r') {
                m_cr = true;
            }
            continue;
        }
        // Phase::Body, outside a skippable stretch: a chunk-size line, the CRLF after a chunk or a trailer line.
        bool lineDone = false;
        if (auto violation = lineByte(c, m_line, &lineDone))
            return stop(violation);
        ++i;
        if (m_body == Body::ChunkSize) {
            if (m_line.size() > kMaxChunkLine)
                return stop(badRequest("A chunk-size line is too long."));
            if (lineDone) {
                if (auto violation = chunkSizeLine())
                    return stop(violation);
            }
        } else if (m_body == Body::ChunkDataEnd) {
            if (!m_line.isEmpty())
                return stop(badRequest("A chunk's data must be followed by CRLF."));
            if (lineDone)
                m_body = Body::ChunkSize;
        } else if (m_body == Body::Trailer) {
            if (++m_trailerBytes > m_limits.maxHeaderBytes)
                return stop(
                    FramingViolation {431, "headers_too_large", "The trailer fields are larger than the limit."});
            if (lineDone) {
                if (m_line.isEmpty()) {
                    requestComplete();
                } else {
                    const qsizetype colon = m_line.indexOf(':');
                    if (colon <= 0 || !isToken(m_line.left(colon)) || !isFieldValue(m_line.mid(colon + 1)))
                        return stop(badRequest("A trailer field is malformed."));
                    m_line.clear();
                }
            }
        }
    }
    return stop(std::nullopt);
}

std::optional<FramingViolation> RequestFramer::chunkSizeLine()
{
    QByteArray sizeText = m_line;
    const qsizetype semicolon = sizeText.indexOf(';');
    if (semicolon >= 0) {
        if (!isFieldValue(sizeText.mid(semicolon)))
            return badRequest("A chunk extension holds a control character.");
        sizeText.truncate(semicolon);
    }
    sizeText = trimmedOws(sizeText);
    if (sizeText.isEmpty() || sizeText.size() > 15)
        return badRequest("A chunk size must be 1 to 15 hexadecimal digits.");
    qint64 chunk = 0;
    for (char c : sizeText) {
        const int digit = (c >= '0' && c <= '9')       ? c - '0'
            : ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') ? (c | 0x20) - 'a' + 10
                                                       : -1;
        if (digit < 0)
            return badRequest("A chunk size must be 1 to 15 hexadecimal digits.");
        chunk = chunk * 16 + digit;
    }
    m_line.clear();
    if (chunk == 0) {
        m_body = Body::Trailer;
        m_trailerBytes = 0;
        return std::nullopt;
    }
    m_bodyBytes += chunk;
    if (m_bodyBytes > m_limits.maxBodyBytes)
        return FramingViolation {413, "body_too_large",
            QByteArray("The request body is larger than the limit of ") + QByteArray::number(m_limits.maxBodyBytes)
                + " bytes."};
    m_body = Body::ChunkData;
    m_remaining = chunk;
    return std::nullopt;
}

std::optional<FramingViolation> RequestFramer::headComplete()
{
    const QList<QByteArray> lines = m_head.left(m_head.size() - 4).split('\n');
    m_head.clear();
    // Every line still ends with the CR of its CRLF (the last one lost it to left() above).
    auto line = [&](qsizetype i) {
        return lines[i].endsWith('\r') ? lines[i].chopped(1) : lines[i];
    };

    const QList<QByteArray> requestLine = line(0).split(' ');
    if (requestLine.size() != 3 || !isToken(requestLine[0]) || requestLine[1].isEmpty())
        return badRequest("The request line must be 'METHOD target HTTP/1.1', separated by single spaces.");
    for (char c : requestLine[1]) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f)
            return badRequest("The request target holds a control, space or non-ASCII character; percent-encode it.");
    }
    const QByteArray &version = requestLine[2];
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return badRequest("Only HTTP/1.1 and HTTP/1.0 are spoken here.");

    int lengthFields = 0, encodingFields = 0;
    qint64 contentLength = 0;
    QByteArray transferEncoding, upgrade, connection;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray field = line(i);
        if (field.startsWith(' ') || field.startsWith('\t'))
            return badRequest("Obsolete line folding is not accepted in header fields.");
        const qsizetype colon = field.indexOf(':');
        if (colon <= 0 || !isToken(field.left(colon)))
            return badRequest("A header field name is malformed (no whitespace before the colon).");
        const QByteArray name = field.left(colon);
        const QByteArray value = trimmedOws(field.mid(colon + 1));
        if (!isFieldValue(value))
            return badRequest("A header field value holds a control character.");
        if (name.compare("Content-Length", Qt::CaseInsensitive) == 0) {
            ++lengthFields;
            if (value.isEmpty() || value.size() > 18)
                return badRequest("Content-Length must be a decimal number.");
            for (char c : value) {
                if (c < '0' || c > '9')
                    return badRequest("Content-Length must be a decimal number.");
            }
            contentLength = value.toLongLong();
        } else if (name.compare("Transfer-Encoding", Qt::CaseInsensitive) == 0) {
            ++encodingFields;
            transferEncoding = value;
        } else if (name.compare("Upgrade", Qt::CaseInsensitive) == 0) {
            upgrade = value;
        } else if (name.compare("Connection", Qt::CaseInsensitive) == 0) {
            connection += connection.isEmpty() ? value : ',' + value;
        }
    }
    // Two framings of one message is how requests are smuggled past a proxy: refuse rather than pick one.
    if (lengthFields > 1)
        return badRequest("More than one Content-Length header field.");
    if (lengthFields && encodingFields)
        return badRequest("Content-Length and Transfer-Encoding together are not accepted.");
    if (encodingFields > 1 || (encodingFields && transferEncoding.compare("chunked", Qt::CaseInsensitive) != 0))
        return badRequest("The only transfer coding accepted is a single 'chunked'.");
    if (encodingFields && version == "HTTP/1.0")
        return badRequest("HTTP/1.0 has no chunked transfer coding.");
    if (contentLength > m_limits.maxBodyBytes)
        return FramingViolation {413, "body_too_large",
            QByteArray("The request body is larger than the limit of ") + QByteArray::number(m_limits.maxBodyBytes)
                + " bytes."};

    // The same rule as Qt's parser: only then does the connection leave HTTP (the WebSocket takes it over).
    if (upgrade.compare("websocket", Qt::CaseInsensitive) == 0 && hasToken(connection, "upgrade")
        && requestLine[0] == "GET" && !lengthFields && !encodingFields) {
        ++m_completed;
        m_phase = Phase::Upgraded;
        return std::nullopt;
    }
    m_phase = Phase::Body;
    m_bodyBytes = 0;
    if (encodingFields) {
        m_body = Body::ChunkSize;
    } else if (contentLength > 0) {
        m_body = Body::Length;
        m_remaining = contentLength;
    } else {
        requestComplete();
    }
    return std::nullopt;
}

void RequestFramer::requestComplete()
{
    ++m_completed;
    m_phase = Phase::Idle;
    m_body = Body::None;
    m_remaining = 0;
    m_line.clear();
}

} // namespace marquee::protection
