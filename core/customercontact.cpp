// SPDX-License-Identifier: AGPL-3.0-or-later
#include "customercontact.h"

namespace marquee {

std::optional<QString> normalizedCustomerEmail(const QString &email)
{
    const QString value = email.trimmed().toLower();
    const qsizetype at = value.indexOf(QLatin1Char('@'));
    if (value.size() > 254 || at <= 0 || at != value.lastIndexOf(QLatin1Char('@')) || at == value.size() - 1)
        return std::nullopt;
    const QString domain = value.mid(at + 1);
    if (!domain.contains(QLatin1Char('.')) || domain.startsWith(QLatin1Char('.')) || domain.endsWith(QLatin1Char('.')))
        return std::nullopt;
    for (const QChar c : value)
        if (c.isSpace() || c.category() == QChar::Other_Control)
            return std::nullopt;
    return value;
}

std::optional<QString> normalizedCustomerPhone(const QString &phone)
{
    const QString value = phone.trimmed();
    if (value.size() > 40)
        return std::nullopt;
    QString digits;
    for (qsizetype i = 0; i < value.size(); ++i) {
        const QChar c = value.at(i);
        if (c.isDigit() && c.unicode() < 128)
            digits.append(c);
        else if (c == QLatin1Char('+') && digits.isEmpty() && i == 0)
            digits.append(c);
        else if (c != QLatin1Char(' ') && c != QLatin1Char('-') && c != QLatin1Char('.') && c != QLatin1Char('(') && c != QLatin1Char(')'))
            return std::nullopt;
    }
    const qsizetype count = digits.startsWith(QLatin1Char('+')) ? digits.size() - 1 : digits.size();
    if (count < 6 || count > 20)
        return std::nullopt;
    return digits;
}

} // namespace marquee
