// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/tokenhash.h"

#include <gtest/gtest.h>

using namespace marquee;

TEST(TokenHash, TokensAreRandomAndUrlSafe)
{
    const QString a = newBearerToken();
    const QString b = newBearerToken();
    EXPECT_NE(a, b);
    EXPECT_EQ(a.size(), 43); // 32 bytes, base64url without padding
    EXPECT_FALSE(a.contains(QLatin1Char('+')) || a.contains(QLatin1Char('/')) || a.contains(QLatin1Char('=')));
    EXPECT_EQ(tokenHash(a), tokenHash(a));
    EXPECT_NE(tokenHash(a), tokenHash(b));
    EXPECT_EQ(tokenHash(a).size(), 64);
}

TEST(TokenHash, PasswordsVerify)
{
    const QString encoded = hashPassword(QStringLiteral("correct horse"), 2000);
    EXPECT_TRUE(encoded.startsWith(QStringLiteral("pbkdf2-sha256$2000$")));
    EXPECT_TRUE(verifyPassword(QStringLiteral("correct horse"), encoded));
    EXPECT_FALSE(verifyPassword(QStringLiteral("correct horsE"), encoded));
    EXPECT_FALSE(verifyPassword(QStringLiteral("correct horse"), QStringLiteral("garbage")));
    EXPECT_FALSE(verifyPassword(QStringLiteral("x"), QStringLiteral("pbkdf2-sha256$10$AA==$AA==")));
    EXPECT_NE(hashPassword(QStringLiteral("same"), 2000), hashPassword(QStringLiteral("same"), 2000));
}

TEST(TokenHash, HmacMatchesKnownVector)
{
    // RFC 4231 test case 2.
    EXPECT_EQ(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
              QByteArray("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    EXPECT_TRUE(constantTimeEquals("abc", "abc"));
    EXPECT_FALSE(constantTimeEquals("abc", "abd"));
    EXPECT_FALSE(constantTimeEquals("abc", "abcd"));
}
