module Main (main) where

import Data.List (foldl')
import System.Environment (getArgs)

spin :: Int -> Int -> Int
spin seed n = foldl' step seed [1 .. n]
  where step x i = (x * 1103515245 + i) `mod` 2147483647

light :: Int -> Int
light n = spin 3 n

medium :: Int -> Int
medium n = foldl' (\x i -> (x + i * x) `mod` 1000003) 5 [1 .. n]

heavy :: Int -> Int
heavy n = spin 7 n + medium (n `div` 4)

callerA :: Int -> Int
callerA n = heavy n

callerB :: Int -> Int
callerB n = heavy n

main :: IO ()
main = do
  args <- getArgs
  let rounds = case args of
        (a : _) -> read a
        _ -> 200
      go :: Int -> Int -> Int
      go acc r
        | r >= rounds = acc
        | otherwise =
            let k = r `mod` 2
                acc' = acc + light (100000 + k) + medium (200000 + k) + callerA (300000 + k) + callerB (100000 + k)
             in acc' `seq` go acc' (r + 1)
  print (go 0 0)
