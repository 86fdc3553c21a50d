"""The terminal client of the Mau-Mau platform: ``maumau play`` plays one match against bots.

It shows your hand, the table and a numbered list of your legal actions, tells what the others
did, speaks English and German, and checks at the end that the deal was fair.
"""
