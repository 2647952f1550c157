// SPDX-License-Identifier: AGPL-3.0-or-later
#include "textcheck.h"

namespace marquee {

namespace {
bool isControl(uint code, bool allowLineBreaks)
{
    if (code == 0x7f)
        return true;
    if (code >= 0x20)
        return false;
    return !(allowLineBreaks && (code == '\t' || code == '\n' || code == '\r'));
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

// Four hex digits at data[at..at+3]; -1 when they are not.
int hex4(const QByteArray &data, qsizetype at)
{
    if (at + 4 > data.size())
        return -1;
    int value = 0;
    for (qsizetype i = at; i < at + 4; ++i) {
        const int digit = hexValue(data[i]);
        if (digit < 0)
            return -1;
        value = value * 16 + digit;
    }
    return value;
}
} // namespace

bool isCleanText(QStringView text, bool allowLineBreaks)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c.isHighSurrogate()) {
            if (i + 1 >= text.size() || !text[i + 1].isLowSurrogate())
                return false;
            ++i;
            continue;
        }
        if (c.isLowSurrogate() || isControl(c.unicode(), allowLineBreaks))
            return false;
    }
    return true;
}

bool isCleanJsonText(const QByteArray &json)
{
    const qsizetype size = json.size();
    bool inString = false;
    for (qsizetype i = 0; i < size; ++i) {
        const auto byte = static_cast<unsigned char>(json[i]);
        if (byte < 0x80) {
            if (!inString) {
                if (byte == '"')
                    inString = true;
                continue;
            }
            if (byte == '"') {
                inString = false;
            } else if (byte == '\\') {
                if (i + 1 >= size)
                    return true; // a truncated document: the parser refuses it
                if (json[i + 1] != 'u') {
                    // What the parser makes of the escape: \b and \f are control characters, and an escape JSON does
                    // not define is read as the escaped byte itself (Qt is lenient: "\a" is "a", so a backslash
                    // and a raw NUL are a NUL).
                    const auto escaped = static_cast<unsigned char>(json[i + 1]);
                    const uint decoded = escaped == 'b' ? 0x08u
                        : escaped == 'f'                ? 0x0cu
                        : escaped == 'n'                ? uint('\n')
                        : escaped == 'r'                ? uint('\r')
                        : escaped == 't'                ? uint('\t')
                                                        : uint(escaped);
                    if (isControl(decoded, true))
                        return false;
                    ++i;
                    continue;
                }
                const int code = hex4(json, i + 2);
                if (code < 0)
                    return true; // not an escape the parser accepts either
                i += 5;
                if (code >= 0xdc00 && code <= 0xdfff)
                    return false; // a low surrogate on its own
                if (code >= 0xd800 && code <= 0xdbff) {
                    if (i + 2 >= size || json[i + 1] != '\\' || json[i + 2] != 'u')
                        return false;
                    const int low = hex4(json, i + 3);
                    if (low < 0xdc00 || low > 0xdfff)
                        return false;
                    i += 6;
                    continue;
                }
                if (isControl(uint(code), true))
                    return false;
            } else if (isControl(byte, true)) {
                return false;
            }
            continue;
        }
        // A multi-byte UTF-8 sequence, strictly: no overlong forms, no encoded surrogates, nothing past U+10FFFF.
        int length = 0;
        uint code = 0;
        if (byte >= 0xc2 && byte <= 0xdf) {
            length = 2;
            code = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
            length = 3;
            code = byte & 0x0f;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
            length = 4;
            code = byte & 0x07;
        } else {
            return false;
        }
        if (i + length > size)
            return false;
        for (int k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(json[i + k]);
            if ((next & 0xc0) != 0x80)
                return false;
            code = (code << 6) | (next & 0x3f);
        }
        if ((length == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff)))
            || (length == 4 && (code < 0x10000 || code > 0x10ffff)))
            return false;
        i += length - 1;
    }
    return true;
}

std::optional<qint64> canonicalId(QStringView text)
{
    if (text.isEmpty() || text.size() > 18 || text[0] < u'1' || text[0] > u'9')
        return std::nullopt;
    qint64 value = 0;
    for (const QChar c : text) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        value = value * 10 + (c.unicode() - u'0');
    }
    return value;
}

QString escapedForLog(QStringView text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || u == 0x7f || u == u'\\' || (u >= 0x80 && u < 0xa0) || u == 0x2028 || u == 0x2029)
            out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

} // namespace marquee
