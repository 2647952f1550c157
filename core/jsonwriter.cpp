// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jsonwriter.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace marquee {

char *JsonWriter::claim(qsizetype bytes)
{
    // One resize per write (the new bytes are left uninitialised) instead of QByteArray::append's general insert
    // path per piece; the caller gives back what it did not use with release().
    const qsizetype at = m_out.size();
    if (m_out.capacity() - at < bytes)
        m_out.reserve(std::max(m_out.capacity() * 2, at + bytes));
    m_out.resize(at + bytes);
    return m_out.data() + at;
}

void JsonWriter::release(const char *end)
{
    m_out.truncate(end - m_out.constData());
}

char *JsonWriter::separate(char *p)
{
    if (m_afterKey)
        m_afterKey = false;
    else if (!m_first)
        *p++ = ',';
    m_first = false;
    return p;
}

JsonWriter &JsonWriter::open(char bracket)
{
    char *p = separate(claim(2));
    *p++ = bracket;
    release(p);
    m_first = true;
    return *this;
}

JsonWriter &JsonWriter::close(char bracket)
{
    *claim(1) = bracket;
    m_first = false;
    return *this;
}

JsonWriter &JsonWriter::key(QByteArrayView name)
{
    char *p = separate(claim(name.size() + 4));
    *p++ = '"';
    std::memcpy(p, name.data(), size_t(name.size()));
    p += name.size();
    *p++ = '"';
    *p++ = ':';
    release(p);
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(qint64 number)
{
    char *p = separate(claim(21));
    release(std::to_chars(p, p + 20, number).ptr);
    return *this;
}

JsonWriter &JsonWriter::value(bool flag)
{
    return raw(flag ? QByteArrayView("true") : QByteArrayView("false"));
}

JsonWriter &JsonWriter::value(QStringView text)
{
    char *p = separate(claim(1 + maxStringBytes(text)));
    release(writeString(p, text));
    return *this;
}

JsonWriter &JsonWriter::null()
{
    return raw("null");
}

JsonWriter &JsonWriter::raw(QByteArrayView json)
{
    char *p = separate(claim(1 + json.size()));
    std::memcpy(p, json.data(), size_t(json.size()));
    release(p + json.size());
    return *this;
}

qsizetype JsonWriter::maxStringBytes(QStringView text)
{
    return 2 + 6 * text.size(); // the quotes; at most \uXXXX per UTF-16 unit
}

char *JsonWriter::writeString(char *p, QStringView text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    *p++ = '"';
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t c = text[i].unicode();
        if (c < 0x80) {
            if (c >= 0x20 && c != u'"' && c != u'\\') {
                *p++ = char(c);
                continue;
            }
            *p++ = '\\';
            switch (c) {
            case u'"': *p++ = '"'; break;
            case u'\\': *p++ = '\\'; break;
            case u'\b': *p++ = 'b'; break;
            case u'\f': *p++ = 'f'; break;
            case u'\n': *p++ = 'n'; break;
            case u'\r': *p++ = 'r'; break;
            case u'\t': *p++ = 't'; break;
            default: // the other control characters as \u00XX, like Qt
                *p++ = 'u';
                *p++ = '0';
                *p++ = '0';
                *p++ = kHex[c >> 4];
                *p++ = kHex[c & 0xf];
            }
        } else if (c < 0x800) {
            *p++ = char(0xc0 | (c >> 6));
            *p++ = char(0x80 | (c & 0x3f));
        } else if (QChar::isHighSurrogate(c) && i + 1 < size && QChar::isLowSurrogate(text[i + 1].unicode())) {
            const char32_t u = QChar::surrogateToUcs4(c, text[++i].unicode()); // outside the BMP: four bytes
            *p++ = char(0xf0 | (u >> 18));
            *p++ = char(0x80 | ((u >> 12) & 0x3f));
            *p++ = char(0x80 | ((u >> 6) & 0x3f));
            *p++ = char(0x80 | (u & 0x3f));
        } else if (QChar::isSurrogate(c)) { // a lone surrogate has no UTF-8 form: \uXXXX, like Qt
            *p++ = '\\';
            *p++ = 'u';
            *p++ = kHex[c >> 12];
            *p++ = kHex[(c >> 8) & 0xf];
            *p++ = kHex[(c >> 4) & 0xf];
            *p++ = kHex[c & 0xf];
        } else {
            *p++ = char(0xe0 | (c >> 12));
            *p++ = char(0x80 | ((c >> 6) & 0x3f));
            *p++ = char(0x80 | (c & 0x3f));
        }
    }
    *p++ = '"';
    return p;
}

} // namespace marquee
